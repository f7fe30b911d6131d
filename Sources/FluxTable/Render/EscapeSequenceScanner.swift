/// Recognises ANSI escape sequences one scalar at a time, so that they count 0 columns and are never cut
/// in half: CSI (`ESC [ … final`, colours and cursor moves), OSC and other string sequences
/// (`ESC ] … BEL` or `… ESC \`, e.g. hyperlinks), and two-character `ESC x`.
struct EscapeSequenceScanner {
    private enum State {
        case text, escape, controlSequence, string, stringEscape
    }

    private var state = State.text

    /// Whether `scalar` belongs to an escape sequence (including the `ESC` starting one).
    mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        switch state {
        case .text:
            guard value == 0x1B else { return false }
            state = .escape
        case .escape:
            switch value {
            case 0x5B: state = .controlSequence                          // [
            case 0x5D, 0x50, 0x5F, 0x5E: state = .string                 // ] P _ ^
            default: state = .text
            }
        case .controlSequence:
            if value >= 0x40 && value <= 0x7E { state = .text }
        case .string:
            if value == 0x07 { state = .text } else if value == 0x1B { state = .stringEscape }
        case .stringEscape:
            state = .text
        }
        return true
    }
}
