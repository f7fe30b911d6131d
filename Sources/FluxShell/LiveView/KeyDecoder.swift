import FluxViews

/// Turns the bytes a terminal sends into keys: escape sequences from a table (terminfo's and the ANSI
/// forms), control characters, and UTF-8 characters.
///
/// A lone Esc cannot be told from the start of a sequence by its byte: the decoder holds a partial
/// sequence back (``isWaiting``) and the loop calls ``flush()`` when nothing more came for a moment.
struct KeyDecoder {
    private var sequences: [[UInt8]: LiveKey] = [:]
    private var prefixes: Set<[UInt8]> = []
    private var pending: [UInt8] = []

    /// A decoder for these key sequences (the first of two for the same bytes wins).
    init(keys: [(bytes: [UInt8], key: LiveKey)]) {
        for (bytes, key) in keys where bytes.count > 1 && bytes[0] == 0x1B {
            if sequences[bytes] == nil { sequences[bytes] = key }
            for length in 1 ..< bytes.count { prefixes.insert(Array(bytes[..<length])) }
        }
    }

    /// Whether bytes are held back that may start a longer sequence.
    var isWaiting: Bool { !pending.isEmpty }

    /// The keys `bytes` complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [LiveKey] {
        pending.append(contentsOf: bytes)
        var keys: [LiveKey] = []
        while let key = next(final: false) { keys.append(key) }
        return keys
    }

    /// The keys held back, taken as they are: a lone `ESC` is Esc.
    mutating func flush() -> [LiveKey] {
        var keys: [LiveKey] = []
        while !pending.isEmpty {
            if let key = next(final: true) { keys.append(key) }
        }
        return keys
    }

    /// The next key, or nil when the bytes so far may be the start of one (or were skipped).
    private mutating func next(final: Bool) -> LiveKey? {
        while let first = pending.first {
            if first == 0x1B {
                if pending.count == 1 {
                    guard final else { return nil }
                    pending.removeFirst()
                    return .escape
                }
                // The longest known sequence the bytes start with.
                var length = min(pending.count, 8)
                while length > 1 {
                    if let key = sequences[Array(pending[..<length])] {
                        pending.removeFirst(length)
                        return key
                    }
                    length -= 1
                }
                if !final && prefixes.contains(pending) { return nil }
                // A mouse report: SGR's `ESC [ < b ; x ; y M`, or the older `ESC [ M b x y`.
                if pending[1] == 0x5B, pending.count > 2, pending[2] == 0x4D {
                    guard pending.count >= 6 else {
                        if !final { return nil }
                        pending.removeAll()
                        continue
                    }
                    let report = pending[3 ..< 6].map { Int($0) - 32 }
                    pending.removeFirst(6)
                    if let key = Self.mouse(button: report[0], column: report[1], line: report[2], pressed: true) { return key }
                    continue
                }
                if pending[1] == 0x5B, pending.count > 2, pending[2] == 0x3C {
                    guard let end = pending.firstIndex(where: { $0 == 0x4D || $0 == 0x6D }) else {
                        if !final && pending.count < 32 { return nil }
                        pending.removeAll()
                        continue
                    }
                    let fields = String(decoding: pending[3 ..< end], as: UTF8.self).split(separator: ";").compactMap { Int($0) }
                    let pressed = pending[end] == 0x4D
                    pending.removeFirst(end + 1)
                    if fields.count == 3, let key = Self.mouse(button: fields[0], column: fields[1], line: fields[2], pressed: pressed) {
                        return key
                    }
                    continue
                }
                // An unknown CSI or SS3 sequence (a function key, a focus report) is skipped whole.
                if pending[1] == 0x5B || pending[1] == 0x4F {
                    let start = 2
                    var end = start
                    if pending[1] == 0x4F {
                        end = pending.count > start ? start + 1 : start
                    } else {
                        while end < pending.count && !(0x40 ... 0x7E).contains(pending[end]) { end += 1 }
                        if end < pending.count { end += 1 }
                    }
                    let complete = end <= pending.count && end > start
                        && (pending[1] == 0x4F || (0x40 ... 0x7E).contains(pending[end - 1]))
                    if !complete && !final { return nil }
                    pending.removeFirst(min(end, pending.count))
                    continue
                }
                pending.removeFirst()
                return .escape
            }
            if first < 0x80 {
                pending.removeFirst()
                switch first {
                case 0x0D, 0x0A: return .enter
                case 0x09: return .tab
                case 0x7F, 0x08: return .backspace
                case 0x01 ... 0x1A: return .control(Character(Unicode.Scalar(first + 0x60)))
                case 0x20 ... 0x7E: return .character(Character(Unicode.Scalar(first)))
                default: continue
                }
            }
            // UTF-8: wait for the whole character.
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            if pending.count < length && !final { return nil }
            let bytes = pending.prefix(length)
            pending.removeFirst(min(length, pending.count))
            let text = String(decoding: bytes, as: UTF8.self)
            if let character = text.first, text.count == 1, character != "\u{FFFD}" { return .character(character) }
        }
        return nil
    }

    /// The key a mouse report stands for (positions from 1, as terminals count): a press of the first
    /// button is a click, the wheel moves as Up and Down; releases, drags and other buttons are nothing.
    private static func mouse(button: Int, column: Int, line: Int, pressed: Bool) -> LiveKey? {
        guard pressed, button >= 0 else { return nil }
        if button & 64 != 0 { return button & 1 == 0 ? .up : .down }
        guard button & (32 | 3) == 0, column >= 1, line >= 1 else { return nil }
        return .click(line: line - 1, column: column - 1)
    }
}
