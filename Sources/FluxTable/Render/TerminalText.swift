/// Text made safe for one line of a table cell, with its display width measured once.
///
/// Line breaks, tabs and other control characters become spaces, so a row stays one line. Escape
/// sequences in the text are kept when colour is on and removed when it is off, since off means the
/// reader wants no styling at all.
struct TerminalText {
    /// The text to write.
    let text: String
    /// Its display width.
    let width: Int
    /// Whether it is printable ASCII, so it can be cut by bytes.
    let isASCII: Bool

    static let empty = TerminalText(text: "", width: 0, isASCII: true)

    /// `raw` prepared for a cell.
    init(_ raw: String, keepEscapes: Bool) {
        if DisplayWidth.isPrintableASCII(raw) {
            self.init(text: raw, width: raw.utf8.count, isASCII: true)
            return
        }
        let clean = Self.clean(raw, keepEscapes: keepEscapes)
        self.init(text: clean, width: DisplayWidth.of(clean), isASCII: false)
    }

    private init(text: String, width: Int, isASCII: Bool) {
        self.text = text
        self.width = width
        self.isASCII = isASCII
    }

    /// The text cut to `columns`, with `ellipsis` when it was cut.
    func fitted(to columns: Int, ellipsis: String) -> String {
        width <= columns ? text : DisplayWidth.truncate(text, to: columns, ellipsis: ellipsis)
    }

    private static func clean(_ raw: String, keepEscapes: Bool) -> String {
        var result = String.UnicodeScalarView()
        var escape = EscapeSequenceScanner()
        for scalar in raw.unicodeScalars {
            if escape.consume(scalar) {
                if keepEscapes { result.append(scalar) }
            } else if scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) {
                result.append(" ")
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
