/// Shows a ``TableDiff`` as a compact patch, one line per change, for watching a table change live.
///
/// Section changes come first, then row changes: deleted rows in their old order, then inserted, moved
/// and updated rows in their new order. Each line starts with a sign and names the section, and
/// positions are counted from 1, as a reader (and Lua) counts them:
///
///     - section Archive (3 rows)
///     + section Triage (2 rows)
///     > section Done (3 → 1)
///     ~ section Issues (header Issues → Open issues)
///     - Issues: Old bug
///     + Issues: Login fails
///     > Issues: Fix typo (from Backlog)
///     > Issues: Rename (row 3 → 6, detail 2 → 3)
///     ~ Issues: Crash on launch (accessory none → checkmark, selected)
///
/// With colour on, `+` lines are green, `-` red, `~` yellow and `>` cyan, and section lines bold. Lines
/// are cut to the width, and an empty diff renders as an empty string.
///
/// ```swift
/// let changes = TableDiff(from: shown, to: next)
/// print(PatchRenderer(options: .detect()).render(changes, from: shown, to: next), terminator: "")
/// ```
public struct PatchRenderer: Sendable {
    /// Width, styling and marks.
    public var options: RenderOptions

    /// A renderer with `options`.
    public init(options: RenderOptions) {
        self.options = options
    }

    /// The patch for `diff`, which must be the diff from `old` to `new` (their rows name the changes).
    public func render(_ diff: TableDiff, from old: TableViewModel, to new: TableViewModel) -> String {
        var lines = PatchLines(options: options)
        let arrow = lines.marks.arrow

        for index in diff.sectionDeletes where old.sections.indices.contains(index) {
            let section = old.sections[index]
            lines.add(.deleted, section: true, "section \(name(of: section))\(rowCount(section))")
        }
        for insert in diff.sectionInserts {
            lines.add(.inserted, section: true, "section \(name(of: insert.section))\(rowCount(insert.section))")
        }
        for move in diff.sectionMoves where new.sections.indices.contains(move.to) {
            lines.add(.moved, section: true,
                      "section \(name(of: new.sections[move.to])) (\(move.from + 1) \(arrow) \(move.to + 1))")
        }
        for update in diff.sectionUpdates
        where old.sections.indices.contains(update.from) && new.sections.indices.contains(update.to) {
            let before = old.sections[update.from]
            var changes: [String] = []
            if before.headerTitle != update.headerTitle {
                changes.append("header \(before.headerTitle ?? "(none)") \(arrow) \(update.headerTitle ?? "(none)")")
            }
            if before.headerHeight != update.headerHeight {
                changes.append("height \(points(before.headerHeight)) \(arrow) \(points(update.headerHeight))")
            }
            lines.add(.updated, section: true,
                      "section \(name(of: new.sections[update.to])) (\(changes.joined(separator: ", ")))")
        }

        for path in diff.rowDeletes {
            guard let cell = old.cell(at: path) else { continue }
            lines.add(.deleted, "\(name(of: old.sections[path.section])): \(cell.title)")
        }
        for change in rowChanges(diff) {
            guard let cell = new.cell(at: change.to) else { continue }
            let section = name(of: new.sections[change.to.section])
            var notes: [String] = []
            var sign = PatchSign.updated
            if let from = change.movedFrom {
                sign = .moved
                if old.sections.indices.contains(from.section),
                   old.sections[from.section].id != new.sections[change.to.section].id {
                    notes.append("from \(name(of: old.sections[from.section]))")
                } else {
                    notes.append("row \(from.row + 1) \(arrow) \(change.to.row + 1)")
                }
            }
            if let from = change.updatedFrom, let before = old.cell(at: from) {
                notes.append(contentsOf: differences(from: before, to: cell, arrow: arrow))
            }
            if change.inserted {
                sign = .inserted
            }
            let suffix = notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
            lines.add(sign, "\(section): \(cell.title)\(suffix)")
        }
        return lines.output.string
    }

    /// Inserts, moves and updates of rows merged into one list in new order, a moved and updated row
    /// once.
    private func rowChanges(_ diff: TableDiff) -> [RowChange] {
        var byPath: [RowPath: RowChange] = [:]
        for insert in diff.rowInserts {
            byPath[insert.path, default: RowChange(to: insert.path)].inserted = true
        }
        for move in diff.rowMoves {
            byPath[move.to, default: RowChange(to: move.to)].movedFrom = move.from
        }
        for update in diff.rowUpdates {
            byPath[update.to, default: RowChange(to: update.to)].updatedFrom = update.from
        }
        return byPath.values.sorted { $0.to < $1.to }
    }

    /// The fields that changed, briefly.
    private func differences(from old: CellViewModel, to new: CellViewModel, arrow: String) -> [String] {
        var notes: [String] = []
        if old.title != new.title { notes.append("title \(old.title) \(arrow) \(new.title)") }
        if old.detail != new.detail {
            notes.append("detail \(old.detail ?? "(none)") \(arrow) \(new.detail ?? "(none)")")
        }
        if old.accessory != new.accessory {
            notes.append("accessory \(old.accessory.rawValue) \(arrow) \(new.accessory.rawValue)")
        }
        if old.enabled != new.enabled { notes.append(new.enabled ? "enabled" : "disabled") }
        if old.selected != new.selected { notes.append(new.selected ? "selected" : "deselected") }
        return notes
    }

    private func name(of section: SectionModel) -> String {
        section.headerTitle.flatMap { $0.isEmpty ? nil : $0 } ?? section.id
    }

    private func rowCount(_ section: SectionModel) -> String {
        section.cells.count == 1 ? " (1 row)" : " (\(section.cells.count) rows)"
    }

    private func points(_ height: Double?) -> String {
        guard let height else { return "(none)" }
        return height == height.rounded() && abs(height) < 1e15 ? String(Int(height)) : String(height)
    }
}

/// One row's insert, move and update, gathered by its new position.
private struct RowChange {
    let to: RowPath
    var inserted = false
    var movedFrom: RowPath?
    var updatedFrom: RowPath?
}

/// The kind of a patch line, its sign and colour.
private enum PatchSign {
    case inserted, deleted, updated, moved

    var symbol: String {
        switch self {
        case .inserted: "+"
        case .deleted: "-"
        case .updated: "~"
        case .moved: ">"
        }
    }

    /// The SGR colour: green, red, yellow, cyan.
    var color: String {
        switch self {
        case .inserted: "32"
        case .deleted: "31"
        case .updated: "33"
        case .moved: "36"
        }
    }
}

/// Patch lines, cleaned of control characters and cut to the width.
private struct PatchLines {
    let options: RenderOptions
    let marks: Marks
    var output: TerminalOutput

    init(options: RenderOptions) {
        self.options = options
        marks = Marks(unicode: options.unicode)
        output = TerminalOutput(color: options.color, capacity: 256)
    }

    mutating func add(_ sign: PatchSign, section: Bool = false, _ text: String) {
        let line = TerminalText("\(sign.symbol) \(text)", keepEscapes: false)
        output.style(section ? "1;\(sign.color)" : sign.color)
        output.write(line.fitted(to: options.width, ellipsis: marks.ellipsis))
        output.style("0")
        output.newline()
    }
}
