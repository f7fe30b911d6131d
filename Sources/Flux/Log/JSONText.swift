/// The few JSON pieces an action log line is assembled from by hand.
public enum JSONText {
    /// `text` as a JSON string, quoted and escaped.
    public static func quote(_ text: String) -> String {
        // Most text needs no escape: copied whole. A byte 0xE2 may begin U+2028 or U+2029, checked below.
        let utf8 = text.utf8
        if !utf8.contains(where: needsEscape) {
            return "\"" + text + "\""
        }
        // Byte by byte (a state's text may be megabytes): only ASCII bytes and U+2028/U+2029 are escaped.
        var quoted: [UInt8] = []
        quoted.reserveCapacity(utf8.count + 16)
        quoted.append(0x22)
        func escape(_ value: UInt32) {
            let hex = Array(String(value, radix: 16).utf8)
            quoted += Array(#"\u"#.utf8) + Array(repeating: UInt8(ascii: "0"), count: 4 - hex.count) + hex
        }
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            switch byte {
            case 0x22: quoted += [0x5C, 0x22]
            case 0x5C: quoted += [0x5C, 0x5C]
            case 0x0A: quoted += [0x5C, UInt8(ascii: "n")]
            case 0x0D: quoted += [0x5C, UInt8(ascii: "r")]
            case 0x09: quoted += [0x5C, UInt8(ascii: "t")]
            case _ where byte < 0x20 || byte == 0x7F: escape(UInt32(byte))
            case 0xE2:
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                let second = utf8.index(after: index)
                if second != utf8.endIndex, utf8[second] == 0x80 {
                    let third = utf8.index(after: second)
                    if third != utf8.endIndex, utf8[third] == 0xA8 || utf8[third] == 0xA9 {
                        escape(utf8[third] == 0xA8 ? 0x2028 : 0x2029)
                        index = utf8.index(after: third)
                        continue
                    }
                }
                quoted.append(byte)
            default: quoted.append(byte)
            }
            index = utf8.index(after: index)
        }
        quoted.append(0x22)
        return String(decoding: quoted, as: UTF8.self)
    }

    /// Appends `text` as a JSON string, quoted and escaped, to the UTF-8 `output`: text that needs no
    /// escape is copied in place, with no string of its own (a journal writes a few per action it saves).
    public static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        // A native or small string's bytes are read in place: one pass to look for a byte to escape, one copy.
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where needsEscape(byte) { return false }
            output.append(0x22)
            output.append(contentsOf: bytes)
            output.append(0x22)
            return true
        }
        if copied == true { return }
        if copied == nil, !text.utf8.contains(where: needsEscape) {
            output.append(0x22)
            output.append(contentsOf: text.utf8)
            output.append(0x22)
        } else {
            output.append(contentsOf: quote(text).utf8)
        }
    }

    /// Whether `quote` escapes the byte, or may (0xE2 begins U+2028 and U+2029).
    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || byte == 0xE2
    }

    /// A finite double as a JSON number that reads back as a double: always with a point or an
    /// exponent (`2.0`, `1e+300`), the shortest text that round-trips. Nil for infinities and NaN.
    public static func float(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        return value.description
    }
}
