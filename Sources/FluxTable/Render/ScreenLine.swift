/// One line of a full-screen view: the text a terminal shows, and the bytes that draw it (the text with
/// its styles), cut to the screen's width.
///
/// Text is always made harmless: control characters become spaces and escape sequences are dropped,
/// since a sequence moving the cursor would break a screen drawn line by line.
///
/// ```swift
/// let status = ScreenLine("toggled openIssues", width: 40, style: .error, color: true)
/// status.text    // "toggled openIssues"
/// ```
public struct ScreenLine: Hashable, Sendable {
    /// What the line shows, without styles; trailing blanks are not kept.
    public let text: String
    /// The bytes that draw the line from its first column: text and SGR styles, ending unstyled.
    public let bytes: [UInt8]
    /// The columns the line covers (padding included), at most the width it was made for.
    public let columns: Int

    /// The style of a whole line.
    public enum Style: Sendable {
        /// No style.
        case plain
        /// Bold, as a section header.
        case bold
        /// Dimmed, as a disabled row or the key help.
        case dim
        /// Reverse video over the whole width, as the focused view's title.
        case reverse
        /// Red, as an error in the status line.
        case error
    }

    /// `text` as one line of `width` columns in `style` (styles only when `color` is on).
    public init(_ text: String, width: Int, style: Style = .plain, color: Bool = false, ellipsis: String = "…") {
        var builder = ScreenLineBuilder(width: width, color: color)
        let sgr: String? = switch style {
        case .plain: nil
        case .bold: "1"
        case .dim: "2"
        case .reverse: "7"
        case .error: "31"
        }
        if let sgr { builder.style(sgr) }
        builder.write(TerminalText(text, keepEscapes: false), ellipsis: ellipsis)
        if style == .reverse { builder.pad(to: width) }
        self = builder.line()
    }

    init(text: String, bytes: [UInt8], columns: Int) {
        self.text = text
        self.bytes = bytes
        self.columns = columns
    }

    /// An empty line.
    public static let empty = ScreenLine(text: "", bytes: [], columns: 0)
}

/// Builds a ``ScreenLine`` left to right, never past its width: the plain text and the styled bytes side
/// by side.
struct ScreenLineBuilder {
    private var plain: [UInt8] = []
    private var bytes: [UInt8] = []
    private(set) var column = 0
    private var styled = false
    let width: Int
    let color: Bool

    init(width: Int, color: Bool) {
        self.width = max(width, 0)
        self.color = color
        plain.reserveCapacity(self.width)
        bytes.reserveCapacity(self.width + 16)
    }

    /// The columns left on the line.
    var remaining: Int { width - column }

    /// An SGR style (`"1"`, `"2;7"`; `"0"` resets) when colour is on.
    mutating func style(_ parameters: String) {
        guard color else { return }
        bytes.appendSGR(parameters)
        styled = parameters != "0"
    }

    /// Text already made safe, cut to what is left of the line.
    mutating func write(_ text: TerminalText, ellipsis: String) {
        guard remaining > 0, text.width > 0 else { return }
        if text.width <= remaining {
            append(text.text, columns: text.width)
        } else {
            let cut = DisplayWidth.truncate(text.text, to: remaining, ellipsis: remaining > 1 ? ellipsis : "")
            append(cut, columns: DisplayWidth.of(cut))
        }
    }

    /// Plain ASCII known to be safe (marks, brackets), cut to what is left.
    mutating func write(mark: String) {
        write(TerminalText(mark, keepEscapes: false), ellipsis: "")
    }

    /// Spaces up to `column` (never past the width).
    mutating func pad(to target: Int) {
        let count = min(target, width) - column
        guard count > 0 else { return }
        plain.append(contentsOf: repeatElement(0x20, count: count))
        bytes.append(contentsOf: repeatElement(0x20, count: count))
        column += count
    }

    private mutating func append(_ text: String, columns: Int) {
        plain.append(contentsOf: text.utf8)
        bytes.append(contentsOf: text.utf8)
        column += columns
    }

    /// The line, its styles reset at the end.
    mutating func line() -> ScreenLine {
        if styled { style("0") }
        var end = plain.count
        while end > 0 && plain[end - 1] == 0x20 { end -= 1 }
        return ScreenLine(text: String(decoding: plain[..<end], as: UTF8.self), bytes: bytes, columns: column)
    }
}
