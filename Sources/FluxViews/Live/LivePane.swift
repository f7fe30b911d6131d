import Flux
import FluxTable

/// One view on a ``LiveScreen``: its last good model and layout, the cursor (always on an enabled row,
/// followed by id across changes), the chosen word of the cursor's row, and the first line on screen.
final class LivePane {
    /// The view's name.
    let name: String
    /// The view's extra keys: key name → action name.
    let keys: [String: String]
    private(set) var model: TableViewModel
    private(set) var layout: TableLayout
    /// The row under the cursor, an enabled one; nil when there is none.
    private(set) var cursor: RowPath?
    /// Which of the cursor row's choices is picked (see ``CellPayload/choices``); kept from row to row,
    /// as a column, and read within the row's choices.
    var choice = 0 {
        didSet { choice = max(choice, 0) }
    }

    /// ``choice`` within the cursor row's choices, or nil when it offers none.
    var effectiveChoice: Int? {
        guard let count = selectedCell?.payload?.choices?.count, count > 0 else { return nil }
        return min(choice, count - 1)
    }
    /// The first line on screen.
    var top = 0
    /// The last error building the model, shown until a model builds again.
    var error: String?
    /// The rows the last change touched.
    var lastChange: TableDiff?
    var subscription: StoreSubscription?

    init(name: String, keys: [String: String], model: TableViewModel) {
        self.name = name
        self.keys = keys
        self.model = model
        layout = TableLayout(model)
        cursor = enabled(from: RowPath(section: 0, row: 0), forward: true)
    }

    /// The cell under the cursor.
    var selectedCell: CellViewModel? { cursor.flatMap(model.cell(at:)) }

    /// Takes the new model: the layout follows the diff, the cursor follows its row by id (a deleted row
    /// passes the cursor to the row that took its place).
    func apply(_ diff: TableDiff, from old: TableViewModel, to new: TableViewModel) {
        layout.update(from: old, to: new, diff: diff)
        model = new
        error = nil
        lastChange = diff
        guard let path = cursor, let id = old.cell(at: path)?.id else {
            cursor = enabled(from: RowPath(section: 0, row: 0), forward: true)
            return
        }
        let sectionID = old.sections[path.section].id
        let followed = follow(id: id, sectionID: sectionID, from: path, diff: diff)
        if let followed, new.cell(at: followed)?.enabled == true {
            if followed != path { choice = 0 }
            cursor = followed
        } else {
            let start = followed ?? neighbour(of: path, sectionID: sectionID)
            cursor = enabled(from: start, forward: true) ?? enabled(from: start, forward: false)
            choice = 0
        }
    }

    /// Where the row `id` went: the same place (the usual case, checked first), a move the diff lists, or
    /// a search of its section.
    private func follow(id: String, sectionID: String, from path: RowPath, diff: TableDiff) -> RowPath? {
        if path.section < model.sections.count, model.sections[path.section].id == sectionID,
           model.cell(at: path)?.id == id { return path }
        if let move = diff.rowMoves.first(where: { $0.from == path }) { return move.to }
        for (index, section) in model.sections.enumerated() where section.id == sectionID {
            if let row = section.cells.firstIndex(where: { $0.id == id }) { return RowPath(section: index, row: row) }
        }
        return nil
    }

    /// The place a deleted row leaves: the same row number in its section, or the nearest that exists.
    private func neighbour(of path: RowPath, sectionID: String) -> RowPath {
        let section = model.sections.firstIndex { $0.id == sectionID } ?? min(path.section, max(model.sections.count - 1, 0))
        guard section < model.sections.count else { return RowPath(section: 0, row: 0) }
        return RowPath(section: section, row: max(min(path.row, model.sections[section].cells.count - 1), 0))
    }

    /// The first enabled row at or after (before) `path`, in reading order.
    func enabled(from path: RowPath, forward: Bool) -> RowPath? {
        var section = path.section
        var row = path.row
        let sections = model.sections
        if forward {
            while section < sections.count {
                let cells = sections[section].cells
                while row < cells.count {
                    if row >= 0, cells[row].enabled { return RowPath(section: section, row: row) }
                    row += 1
                }
                section += 1
                row = 0
            }
        } else {
            if section >= sections.count {
                section = sections.count - 1
                row = Int.max
            }
            while section >= 0 {
                let cells = sections[section].cells
                row = min(row, cells.count - 1)
                while row >= 0 {
                    if cells[row].enabled { return RowPath(section: section, row: row) }
                    row -= 1
                }
                section -= 1
                row = Int.max
            }
        }
        return nil
    }

    /// The enabled row on line `offset` of the window last drawn (from ``top``), if there is one there.
    func row(atBodyLine offset: Int) -> RowPath? {
        let index = top + offset
        guard index >= 0, index < layout.lineCount, case let .cell(path) = layout.line(at: index),
              model.cell(at: path)?.enabled == true else { return nil }
        return path
    }

    /// Puts the cursor on `path`, an enabled row; the choice stays, as for Up and Down.
    func select(_ path: RowPath) {
        cursor = path
    }

    /// Moves the cursor to the next (previous) enabled row; at the top, shows the lines above.
    func step(forward: Bool) {
        guard let path = cursor else { return }
        let next = forward ? successor(of: path) : predecessor(of: path)
        if let found = next.flatMap({ enabled(from: $0, forward: forward) }) {
            cursor = found // the choice stays: Up and Down keep a board's column
        } else if !forward {
            top = 0
        }
    }

    /// Moves the cursor about `lines` lines (negative: up) to the nearest enabled row that way.
    func page(by lines: Int) {
        guard let path = cursor, layout.lineCount > 0 else { return }
        let target = min(max(layout.lineIndex(of: path) + lines, 0), layout.lineCount - 1)
        var index = target
        let forward = lines > 0
        // From the target line, the first enabled row in the direction of travel, else the other way.
        while index >= 0 && index < layout.lineCount {
            if case let .cell(found) = layout.line(at: index) {
                if let enabledRow = enabled(from: found, forward: forward) {
                    cursor = forward ? enabledRow : (enabled(from: found, forward: false) ?? enabledRow)
                    choice = 0
                    if !forward && target == 0 { top = 0 }
                    return
                }
            }
            index += forward ? 1 : -1
        }
        home(last: forward)
    }

    /// The first (last) enabled row.
    func home(last: Bool) {
        let found = last
            ? enabled(from: RowPath(section: model.sections.count, row: 0), forward: false)
            : enabled(from: RowPath(section: 0, row: 0), forward: true)
        if let found {
            cursor = found
            choice = 0
        }
        if !last { top = 0 }
    }

    private func successor(of path: RowPath) -> RowPath? {
        if path.row + 1 < model.sections[path.section].cells.count { return RowPath(section: path.section, row: path.row + 1) }
        return path.section + 1 < model.sections.count ? RowPath(section: path.section + 1, row: 0) : nil
    }

    private func predecessor(of path: RowPath) -> RowPath? {
        if path.row > 0 { return RowPath(section: path.section, row: path.row - 1) }
        return path.section > 0 ? RowPath(section: path.section - 1, row: Int.max) : nil
    }

    /// Scrolls so the cursor's line is among the `height` lines shown, with its section's header when it
    /// is the section's first row and there is room.
    func scroll(height: Int) {
        guard height > 0 else { return }
        top = max(min(top, layout.lineCount - height), 0)
        guard let path = cursor else { return }
        let line = layout.lineIndex(of: path)
        if line < top {
            let lead = path.row == 0 ? layout.leadLineCount(ofSection: path.section) : 0
            top = max(line - min(lead, height - 1), 0)
        } else if line >= top + height {
            top = line - height + 1
        }
    }

    /// The `height` lines from ``top``, `width` columns wide.
    func lines(width: Int, height: Int, options: RenderOptions) -> [ScreenLine] {
        guard height > 0 else { return [] }
        scroll(height: height)
        if layout.lineCount == 0 {
            return [ScreenLine("(no rows)", width: width, style: .dim, color: options.color)]
                + Array(repeating: .empty, count: height - 1)
        }
        var lines: [ScreenLine] = []
        lines.reserveCapacity(height)
        for index in top ..< min(top + height, layout.lineCount) {
            lines.append(layout.draw(line: index, of: model, width: width, options: options, cursor: cursor, choice: effectiveChoice))
        }
        while lines.count < height { lines.append(.empty) }
        return lines
    }
}
