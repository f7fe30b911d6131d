/// Text from scripts made safe to write to a terminal: an error message, a name. Control characters
/// other than newline and tab are written as Lua writes them in a quoted string (`\27` for ESC), so a
/// message cannot set the window title, clear the screen or move the cursor.
public enum EscapedText {
    /// `text` with its control characters (C0 but newline and tab, DEL, C1) escaped.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += scalar.value < 0x80 ? "\\\(scalar.value)" : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `text` holds a character ``escaped(_:)`` would escape.
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00 ..< 0x20, 0x7F ..< 0xA0: true
        default: false
        }
    }
}
