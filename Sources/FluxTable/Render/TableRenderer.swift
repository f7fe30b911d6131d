/// Shows a ``TableViewModel`` as a readable table on a terminal.
///
/// Each section starts with its header in bold, after a blank line when the header is at least 20
/// points high (a table view's usual 28 or more gives one; nil, 0 or a thin header none): a terminal
/// line is about 20 points, and more than one blank line would waste the screen. Each row is
///
///     ● Title             Detail      ›
///
/// with `●` marking the selected row, the detail column when any row has a detail, and the accessory
/// (`✓` checkmark, `›` disclosure) when any row has one; a disabled row is dimmed. Columns line up across
/// sections. When the table is wider than ``RenderOptions/width``, the widest column shrinks first, no
/// column below 6 columns, and cut text ends in `…`. Widths are display widths (see ``DisplayWidth``).
///
/// ```swift
/// let text = TableRenderer(options: .detect()).render(model)
/// print(text, terminator: "")
/// ```
public struct TableRenderer: Sendable {
    /// Width, styling and marks.
    public var options: RenderOptions

    /// The narrowest a column is shrunk to, unless its text is narrower.
    public static let minimumColumnWidth = 6
    /// The header height, in points, from which a blank line precedes the header.
    public static let blankLineHeight = 20.0

    /// A renderer with `options`.
    public init(options: RenderOptions) {
        self.options = options
    }

    /// The table as lines of text, each ending in a newline; empty for a table without sections.
    public func render(_ model: TableViewModel) -> String {
        let marks = Marks(unicode: options.unicode)
        let keepEscapes = options.color
        let cellCount = model.cellCount

        // Measure every cell once; columns are sized to the widest text of all sections.
        var titles: [TerminalText] = []
        var details: [TerminalText] = []
        titles.reserveCapacity(cellCount)
        details.reserveCapacity(cellCount)
        var titleWidth = 0
        var detailWidth = 0
        var hasAccessory = false
        // Cells are read field by field, not copied whole, to spare retaining strings not used here.
        for section in model.sections {
            let cells = section.cells
            for index in cells.indices {
                let title = TerminalText(cells[index].title, keepEscapes: keepEscapes)
                let detail = cells[index].detail.map { TerminalText($0, keepEscapes: keepEscapes) } ?? .empty
                titleWidth = max(titleWidth, title.width)
                detailWidth = max(detailWidth, detail.width)
                hasAccessory = hasAccessory || cells[index].accessory != .none
                titles.append(title)
                details.append(detail)
            }
        }
        let hasDetail = detailWidth > 0
        let gap = 2
        let accessoryWidth = 2
        let fixed = 2 + (hasDetail ? gap : 0) + (hasAccessory ? accessoryWidth : 0)
        let fitted = fitColumns(
            hasDetail ? [titleWidth, detailWidth] : [titleWidth],
            into: options.width - fixed, minimum: Self.minimumColumnWidth)
        let titleColumn = fitted[0]
        let detailColumn = hasDetail ? fitted[1] : 0

        var output = TerminalOutput(
            color: options.color, capacity: cellCount * (fixed + titleColumn + detailColumn + 8) + 256)
        var index = 0
        for section in model.sections {
            writeHeader(of: section, to: &output, marks: marks)
            let cells = section.cells
            for cell in cells.indices {
                let dimmed = !cells[cell].enabled
                if dimmed { output.style("2") }
                if cells[cell].selected { output.write(marks.selected) } else { output.space(1) }
                output.space(1)
                write(titles[index], in: titleColumn, to: &output, marks: marks)
                if hasDetail {
                    output.space(gap)
                    write(details[index], in: detailColumn, to: &output, marks: marks)
                }
                if hasAccessory {
                    output.space(1)
                    if let mark = marks.mark(for: cells[cell].accessory) { output.write(mark) }
                }
                if dimmed { output.style("0") }
                output.newline()
                index += 1
            }
        }
        return output.string
    }

    /// A blank line for a high header, then its title in bold, cut to the line width.
    private func writeHeader(of section: SectionModel, to output: inout TerminalOutput, marks: Marks) {
        if let height = section.headerHeight, height >= Self.blankLineHeight {
            output.newline()
        }
        guard let title = section.headerTitle, !title.isEmpty else { return }
        let text = TerminalText(title, keepEscapes: options.color)
        output.style("1")
        output.write(text.fitted(to: options.width, ellipsis: marks.ellipsis))
        output.style("0")
        output.newline()
    }

    /// `text` cut to `columns` and padded to them (the padding is dropped at the end of a line).
    private func write(_ text: TerminalText, in columns: Int, to output: inout TerminalOutput, marks: Marks) {
        if text.width <= columns {
            output.write(text.text)
            output.space(columns - text.width)
        } else {
            let cut = DisplayWidth.truncate(text.text, to: columns, ellipsis: marks.ellipsis)
            output.write(cut)
            output.space(columns - DisplayWidth.of(cut))
        }
    }
}
