import Glibc

/// How many terminal columns text takes, and how to cut it to fit.
///
/// Widths are display widths, not `String.count`: an East Asian wide character takes 2 columns, an
/// emoji 2, a combining mark 0, and an ANSI escape sequence (colour, bold, a hyperlink) 0. Widths come
/// from glibc's `wcwidth` under a UTF-8 locale; where no UTF-8 locale is installed, from an estimate
/// based on Unicode properties. Printable ASCII, the common case, is measured without decoding.
///
/// ```swift
/// DisplayWidth.of("表示")           // 4
/// DisplayWidth.truncate("Hello, world", to: 8)   // "Hello, …"
/// ```
public enum DisplayWidth {
    /// The columns `text` takes on a terminal. Control characters other than escape sequences count 0.
    public static func of(_ text: String) -> Int {
        if isPrintableASCII(text) {
            return text.utf8.count
        }
        return measure(text.unicodeScalars, fitting: Int.max).width
    }

    /// The columns one scalar takes on its own: 0 for controls and zero-width marks.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value >= 0x20 && scalar.value < 0x7F {
            return 1
        }
        return measure(String.UnicodeScalarView([scalar]), fitting: Int.max).width
    }

    /// `text` cut to at most `width` columns, ending in `ellipsis` when anything was cut.
    ///
    /// Combining marks stay with their base character, and escape sequences are kept whole; when the
    /// kept part holds any, a reset (`ESC[0m`) precedes the ellipsis so styles do not run on.
    public static func truncate(_ text: String, to width: Int, ellipsis: String = "…") -> String {
        let ascii = isPrintableASCII(text)
        let total = ascii ? text.utf8.count : of(text)
        guard total > width else { return text }
        let ellipsisWidth = of(ellipsis)
        let budget = width - ellipsisWidth
        guard budget >= 0 else {
            return truncate(text, to: max(width, 0), ellipsis: "")
        }
        if ascii {
            return String(text[..<text.utf8.index(text.utf8.startIndex, offsetBy: budget)]) + ellipsis
        }
        let scalars = text.unicodeScalars
        let kept = measure(scalars, fitting: budget)
        var end = kept.end
        if end > scalars.startIndex && scalars[scalars.index(before: end)] == zeroWidthJoiner {
            end = scalars.index(before: end)
        }
        let reset = kept.sawEscape ? "\u{1B}[0m" : ""
        return String(scalars[..<end]) + reset + ellipsis
    }

    /// Whether every byte is printable ASCII (space to tilde), so that width is byte count.
    static func isPrintableASCII(_ text: String) -> Bool {
        let result = text.utf8.withContiguousStorageIfAvailable { bytes in
            var outside: UInt8 = 0
            for byte in bytes {
                // Bytes 0x20...0x7E map to 0...0x5E; anything else lands at 0x5F or above.
                outside |= (byte &- 0x20) >= 0x5F ? 1 : 0
            }
            return outside == 0
        }
        return result ?? text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Walks `scalars` while their width fits in `limit`: the width reached, where the walk stopped, and
    /// whether an escape sequence was passed.
    static func measure(
        _ scalars: String.UnicodeScalarView, fitting limit: Int
    ) -> (width: Int, end: String.Index, sawEscape: Bool) {
        guard let locale = UTF8Locale.shared else {
            return walk(scalars, fitting: limit, width: estimatedWidth)
        }
        return locale.withCurrent { wcwidth in
            walk(scalars, fitting: limit) { scalar in
                let width = Int(wcwidth(Int32(bitPattern: scalar.value)))
                return width >= 0 ? width : estimatedWidth(scalar)
            }
        }
    }

    private static let zeroWidthJoiner: Unicode.Scalar = "\u{200D}"
    private static let emojiPresentationSelector: Unicode.Scalar = "\u{FE0F}"

    private static func walk(
        _ scalars: String.UnicodeScalarView, fitting limit: Int, width widthOf: (Unicode.Scalar) -> Int
    ) -> (width: Int, end: String.Index, sawEscape: Bool) {
        var total = 0
        var escape = EscapeSequenceScanner()
        var sawEscape = false
        var previous = 0
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            var width = 0
            if escape.consume(scalar) {
                sawEscape = true
            } else if scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) {
                width = 0
            } else if scalar.value < 0x7F {
                width = 1
            } else if scalar == emojiPresentationSelector {
                // VS16 asks for emoji presentation: a narrow base such as ❤ becomes 2 columns wide.
                width = previous == 1 ? 1 : 0
            } else {
                width = widthOf(scalar)
            }
            if width > 0 && total + width > limit {
                break
            }
            total += width
            previous = scalar == emojiPresentationSelector ? 0 : width
            index = scalars.index(after: index)
        }
        return (total, index, sawEscape)
    }

    /// A width from Unicode properties, for scalars glibc does not know or when no UTF-8 locale exists.
    static func estimatedWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (value >= 0x7F && value < 0xA0) {
            return 0
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return 0
        default:
            break
        }
        if scalar.properties.isEmojiPresentation {
            return 2
        }
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}
