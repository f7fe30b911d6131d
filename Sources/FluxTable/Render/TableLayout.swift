/// A table laid out as lines for a full-screen view that shows a window of it: which line is a
/// header, a blank or a row, how wide the columns are, and any one line drawn on its own.
///
/// Nothing here walks all rows after the first layout: a change is applied from its ``TableDiff`` (the
/// column widths are counts of widths, updated for the rows that went, came or changed; the line
/// positions are one number per section), and only the lines on screen are ever drawn. So a view of a
/// million rows scrolls as fast as one of ten.
///
/// Lines follow ``TableRenderer``: a blank before a header at least 20 points high, the header, then
/// the rows. A row is drawn as
///
///     ▸● Title             Detail      ›
///
/// `▸` (`>` without Unicode) marking the cursor, `●` the row's own `selected`. A row offering choices
/// (its payload an array whose length matches its title's words) shows the chosen word in brackets:
/// `X[.]O`.
public struct TableLayout: Sendable {
    /// What a line of the layout shows.
    public enum Line: Hashable, Sendable {
        /// The blank before a high header.
        case blank
        /// Section `section`'s header.
        case header(section: Int)
        /// The row at a path.
        case cell(RowPath)
    }

    private var titleWidths = WidthCounts()
    private var detailWidths = WidthCounts()
    private var accessories = 0
    /// For each section, the index of its first line.
    private var sectionStarts: [Int] = []
    /// For each section, the lines before its first row (blank and header).
    private var leadLines: [Int] = []
    /// The number of lines.
    public private(set) var lineCount = 0

    /// The layout of `model`, measuring every row once.
    public init(_ model: TableViewModel) {
        for section in model.sections {
            for cell in section.cells { count(cell, by: 1) }
        }
        place(model)
    }

    /// Applies the change from `old` to `new`: widths are re-counted only for the rows `diff` lists.
    public mutating func update(from old: TableViewModel, to new: TableViewModel, diff: TableDiff) {
        for index in diff.sectionDeletes where old.sections.indices.contains(index) {
            for cell in old.sections[index].cells { count(cell, by: -1) }
        }
        for insert in diff.sectionInserts {
            for cell in insert.section.cells { count(cell, by: 1) }
        }
        for path in diff.rowDeletes {
            if let cell = old.cell(at: path) { count(cell, by: -1) }
        }
        for insert in diff.rowInserts { count(insert.cell, by: 1) }
        for update in diff.rowUpdates {
            if let cell = old.cell(at: update.from) { count(cell, by: -1) }
            count(update.cell, by: 1)
        }
        place(new)
    }

    private mutating func count(_ cell: CellViewModel, by delta: Int) {
        titleWidths.add(TerminalText(cell.title, keepEscapes: false).width, delta)
        if let detail = cell.detail {
            detailWidths.add(TerminalText(detail, keepEscapes: false).width, delta)
        }
        if cell.accessory != .none { accessories += delta }
    }

    private mutating func place(_ model: TableViewModel) {
        sectionStarts.removeAll(keepingCapacity: true)
        leadLines.removeAll(keepingCapacity: true)
        var line = 0
        for section in model.sections {
            var lead = 0
            if let height = section.headerHeight, height >= TableRenderer.blankLineHeight { lead += 1 }
            if let title = section.headerTitle, !title.isEmpty { lead += 1 }
            sectionStarts.append(line)
            leadLines.append(lead)
            line += lead + section.cells.count
        }
        lineCount = line
    }

    /// What line `index` shows (0 ≤ index < ``lineCount``).
    public func line(at index: Int) -> Line {
        // The last section starting at or before the line.
        var low = 0
        var high = sectionStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sectionStarts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        let offset = index - sectionStarts[low]
        let lead = leadLines[low]
        if offset >= lead { return .cell(RowPath(section: low, row: offset - lead)) }
        return lead == 2 && offset == 0 ? .blank : .header(section: low)
    }

    /// The line showing the row at `path`.
    public func lineIndex(of path: RowPath) -> Int {
        sectionStarts[path.section] + leadLines[path.section] + path.row
    }

    /// The number of lines (blank, header) above the first row of section `section`.
    public func leadLineCount(ofSection section: Int) -> Int {
        leadLines[section]
    }

    /// Line `index` of `model` drawn `width` columns wide: `cursor` marks the row under the cursor
    /// (reversed with colour), `choice` the chosen word of that row's title.
    public func draw(
        line index: Int, of model: TableViewModel, width: Int, options: RenderOptions,
        cursor: RowPath?, choice: Int?
    ) -> ScreenLine {
        let marks = Marks(unicode: options.unicode)
        var builder = ScreenLineBuilder(width: width, color: options.color)
        switch line(at: index) {
        case .blank:
            break
        case let .header(section):
            builder.style("1")
            builder.write(TerminalText(model.sections[section].headerTitle ?? "", keepEscapes: false), ellipsis: marks.ellipsis)
        case let .cell(path):
            guard let cell = model.cell(at: path) else { break }
            drawCell(cell, isCursor: path == cursor, choice: path == cursor ? choice : nil, into: &builder,
                     marks: marks, width: width)
        }
        return builder.line()
    }

    private func drawCell(
        _ cell: CellViewModel, isCursor: Bool, choice: Int?, into builder: inout ScreenLineBuilder,
        marks: Marks, width: Int
    ) {
        let hasDetail = detailWidths.maximum > 0
        let hasAccessory = accessories > 0
        // cursor, selection mark, a space (or "[") before the title; a space (or "]") and a gap after it
        let fixed = 3 + (hasDetail ? 2 : 0) + (hasAccessory ? 2 : 0)
        let fitted = fitColumns(
            hasDetail ? [titleWidths.maximum, detailWidths.maximum] : [titleWidths.maximum],
            into: width - fixed, minimum: TableRenderer.minimumColumnWidth)
        if isCursor { builder.style("7") } else if !cell.enabled { builder.style("2") }
        builder.write(mark: isCursor ? marks.cursor : " ")
        builder.write(mark: cell.selected ? marks.selected : " ")
        let title = TerminalText(cell.title, keepEscapes: false)
        let words = choice.flatMap { choice in
            cell.payload?.choices.flatMap { choices -> [Substring]? in
                let words = title.text.split(separator: " ", omittingEmptySubsequences: false)
                return words.count == choices.count && choices.indices.contains(choice) ? words : nil
            }
        }
        let titleStart = builder.column + 1
        if let words, let choice {
            // The chosen word in brackets, which take the place of the blanks around it.
            builder.write(mark: choice == 0 ? "[" : " ")
            for (position, word) in words.enumerated() {
                if position > 0 { builder.write(mark: position == choice ? "[" : position == choice + 1 ? "]" : " ") }
                builder.write(TerminalText(String(word), keepEscapes: false), ellipsis: marks.ellipsis)
            }
            if choice == words.count - 1 { builder.write(mark: "]") }
        } else {
            builder.write(mark: " ")
            builder.write(title.width <= fitted[0] ? title : TerminalText(
                DisplayWidth.truncate(title.text, to: fitted[0], ellipsis: marks.ellipsis), keepEscapes: false),
                ellipsis: marks.ellipsis)
        }
        var column = titleStart + fitted[0]
        if hasDetail {
            column += 2
            builder.pad(to: column)
            if let detail = cell.detail, builder.column == column {
                let text = TerminalText(detail, keepEscapes: false)
                builder.write(text.width <= fitted[1] ? text : TerminalText(
                    DisplayWidth.truncate(text.text, to: fitted[1], ellipsis: marks.ellipsis), keepEscapes: false),
                    ellipsis: marks.ellipsis)
            }
            column += fitted[1]
        }
        if hasAccessory, let mark = marks.mark(for: cell.accessory) {
            builder.pad(to: column + 1)
            builder.write(mark: mark)
        }
        if isCursor { builder.pad(to: width) }
    }
}

/// How many rows have each width, so the widest is known after rows come and go without measuring all.
struct WidthCounts: Sendable {
    private var counts: [Int: Int] = [:]
    private(set) var maximum = 0

    mutating func add(_ width: Int, _ delta: Int) {
        guard width > 0 else { return }
        let count = counts[width, default: 0] + delta
        if count > 0 {
            counts[width] = count
            maximum = max(maximum, width)
        } else {
            counts[width] = nil
            if width == maximum { maximum = counts.keys.max() ?? 0 }
        }
    }
}
