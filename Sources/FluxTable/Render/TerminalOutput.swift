/// Lines of terminal output collected as UTF-8 bytes, so a 10,000-row table is one buffer and one
/// string rather than thousands of small ones.
///
/// Spaces are held back until something follows them, so no line ends in padding; styles are written
/// only when colour is on.
struct TerminalOutput {
    private var bytes: [UInt8] = []
    private var pendingSpaces = 0
    let color: Bool

    init(color: Bool, capacity: Int) {
        self.color = color
        bytes.reserveCapacity(capacity)
    }

    /// Text, after any held-back spaces; empty text writes nothing, not even those.
    mutating func write(_ text: String) {
        guard !text.isEmpty else { return }
        if pendingSpaces > 0 {
            bytes.append(contentsOf: repeatElement(0x20, count: pendingSpaces))
            pendingSpaces = 0
        }
        bytes.append(contentsOf: text.utf8)
    }

    /// `count` spaces, written only if text follows on the line.
    mutating func space(_ count: Int) {
        pendingSpaces += max(count, 0)
    }

    /// An SGR style (`"1"` bold, `"2"` dim, `"0"` reset) when colour is on.
    mutating func style(_ parameters: String) {
        guard color else { return }
        bytes.appendSGR(parameters)
    }

    /// Ends the line, dropping held-back spaces.
    mutating func newline() {
        pendingSpaces = 0
        bytes.append(0x0A)
    }

    /// Everything written.
    var string: String {
        String(decoding: bytes, as: UTF8.self)
    }
}

extension [UInt8] {
    /// An SGR sequence, `ESC [ parameters m`: the one way table output and screen lines write a style.
    mutating func appendSGR(_ parameters: String) {
        append(0x1B)
        append(0x5B)
        append(contentsOf: parameters.utf8)
        append(0x6D)
    }
}
