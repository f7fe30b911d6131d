// Heckel's linear diff ("A technique for isolating differences between files", 1978), as IGListKit and
// DifferenceKit use it: match entries by identity through a hash table, then derive inserts, deletes,
// moves and updates from the matches in one pass each. Identities here are unique within a section, so
// the table only has to find each row's single partner.

extension TableDiff {
    /// The changes from `old` to `new`, in time linear in the number of sections and rows.
    ///
    /// Repeated ids (which ``TableViewModel/validate()`` rejects) still give a correct diff: the first
    /// of a repeated id is matched, the others are deleted or inserted.
    public init(from old: TableViewModel, to new: TableViewModel) {
        self.init()
        let oldSections = old.sections
        let newSections = new.sections
        let sections = SectionMatching(old: oldSections, new: newSections)

        sectionDeletes = oldSections.indices.filter { sections.newIndex[$0] < 0 }
        for (index, section) in newSections.enumerated() {
            let from = sections.oldIndex[index]
            if from < 0 {
                sectionInserts.append(SectionInsert(index: index, section: section))
            } else if oldSections[from].headerTitle != section.headerTitle
                || oldSections[from].headerHeight != section.headerHeight {
                sectionUpdates.append(SectionUpdate(
                    from: from, to: index, headerTitle: section.headerTitle, headerHeight: section.headerHeight))
            }
        }
        sectionMoves = movedEntries(oldIndexOf: sections.oldIndex, oldCount: oldSections.count)
            .map { SectionMove(from: $0.from, to: $0.to) }

        var rows = RowMatching(old: oldSections, new: newSections, sections: sections)
        rows.matchWithinSections()
        rows.matchAcrossSections()
        collectRowChanges(rows, old: oldSections, new: newSections, sections: sections)
    }

    /// Lists deletes, inserts, moves and updates of rows from the matches.
    private mutating func collectRowChanges(
        _ rows: RowMatching, old: [SectionModel], new: [SectionModel], sections: SectionMatching
    ) {
        for (oldSection, matches) in rows.oldMatch.enumerated() where sections.newIndex[oldSection] >= 0 {
            for (row, match) in matches.enumerated() where match < 0 {
                rowDeletes.append(RowPath(section: oldSection, row: row))
            }
        }
        var tracked: [Bool] = []
        for (newSection, matches) in rows.newMatch.enumerated() {
            let oldSection = sections.oldIndex[newSection]
            guard oldSection >= 0 else { continue }
            let newCells = new[newSection].cells
            // A row of the old section is "tracked" once placed, or from the start when it leaves the
            // section; the first untracked row is where the next unmoved row must come from.
            let oldMatches = rows.oldMatch[oldSection]
            tracked.removeAll(keepingCapacity: true)
            tracked.append(contentsOf: oldMatches.lazy.map { $0 < 0 || PackedPath.section($0) != newSection })
            var untracked = 0
            for (row, match) in matches.enumerated() {
                let to = RowPath(section: newSection, row: row)
                guard match >= 0 else {
                    rowInserts.append(RowInsert(path: to, cell: newCells[row]))
                    continue
                }
                let from = PackedPath.unpack(match)
                if from.section != oldSection {
                    rowMoves.append(RowMove(from: from, to: to))
                } else {
                    while untracked < tracked.count && tracked[untracked] { untracked += 1 }
                    if from.row != untracked {
                        rowMoves.append(RowMove(from: from, to: to))
                    }
                    tracked[from.row] = true
                }
                if old[from.section].cells[from.row] != newCells[row] {
                    rowUpdates.append(RowUpdate(from: from, to: to, cell: newCells[row]))
                }
            }
        }
    }
}

/// The kept entries whose order changed, given for each new index the old index it came from (or -1
/// for an insert). Entries not listed keep their relative order, as DifferenceKit finds them: walking
/// the new order, an entry stays put when it is the first old entry not yet placed.
private func movedEntries(oldIndexOf: [Int], oldCount: Int) -> [(from: Int, to: Int)] {
    var tracked = [Bool](repeating: true, count: oldCount)
    for from in oldIndexOf where from >= 0 {
        tracked[from] = false
    }
    var moves: [(from: Int, to: Int)] = []
    var untracked = 0
    for (to, from) in oldIndexOf.enumerated() where from >= 0 {
        while untracked < oldCount && tracked[untracked] { untracked += 1 }
        if from != untracked {
            moves.append((from, to))
        }
        tracked[from] = true
    }
    return moves
}

/// Old and new sections paired by id.
private struct SectionMatching {
    /// For each old section, the index of its new counterpart, or -1 when it was deleted.
    var newIndex: [Int]
    /// For each new section, the index of its old counterpart, or -1 when it was inserted.
    var oldIndex: [Int]

    init(old: [SectionModel], new: [SectionModel]) {
        newIndex = [Int](repeating: -1, count: old.count)
        oldIndex = [Int](repeating: -1, count: new.count)
        var unmatched = OccurrenceTable(positions: Array(old.indices)) { old[$0].id }
        for (index, section) in new.enumerated() {
            if let from = unmatched.take(section.id) {
                newIndex[from] = index
                oldIndex[index] = from
            }
        }
    }
}

/// Heckel's symbol table: for each id, the positions not yet matched that hold it, handed out first
/// come, first served, so that repeated ids pair up in order.
private struct OccurrenceTable {
    private let positions: [Int]
    /// For each id, the index in `positions` of its first unmatched position.
    private var first: [String: Int]
    /// For each index in `positions`, the index of the next position with the same id, or -1.
    private var next: [Int]

    /// A table of `positions` (ascending), whose ids `id` gives.
    init(positions: [Int], id: (Int) -> String) {
        self.positions = positions
        first = Dictionary(minimumCapacity: positions.count)
        next = [Int](repeating: -1, count: positions.count)
        for index in positions.indices.reversed() {
            if let following = first.updateValue(index, forKey: id(positions[index])) {
                next[index] = following
            }
        }
    }

    /// The first unmatched position holding `id`, now matched; nil when none is left.
    mutating func take(_ id: String) -> Int? {
        guard let entry = first.index(forKey: id) else { return nil }
        let index = first.values[entry]
        if next[index] < 0 {
            first.remove(at: entry)
        } else {
            first.values[entry] = next[index]
        }
        return positions[index]
    }
}

/// A row position packed into one `Int`, -1 meaning none, to keep the match tables flat.
private enum PackedPath {
    static func pack(section: Int, row: Int) -> Int { section << 32 | row }
    static func section(_ packed: Int) -> Int { packed >> 32 }
    static func unpack(_ packed: Int) -> RowPath {
        RowPath(section: packed >> 32, row: packed & 0xFFFF_FFFF)
    }
}

/// Old and new rows paired by id.
private struct RowMatching {
    let old: [SectionModel]
    let new: [SectionModel]
    let sections: SectionMatching
    /// For each old row, its new position packed, or -1.
    var oldMatch: [[Int]]
    /// For each new row, its old position packed, or -1.
    var newMatch: [[Int]]

    init(old: [SectionModel], new: [SectionModel], sections: SectionMatching) {
        self.old = old
        self.new = new
        self.sections = sections
        oldMatch = old.map { [Int](repeating: -1, count: $0.cells.count) }
        newMatch = new.map { [Int](repeating: -1, count: $0.cells.count) }
    }

    private mutating func link(oldSection: Int, oldRow: Int, newSection: Int, newRow: Int) {
        oldMatch[oldSection][oldRow] = PackedPath.pack(section: newSection, row: newRow)
        newMatch[newSection][newRow] = PackedPath.pack(section: oldSection, row: oldRow)
    }

    /// Pairs rows that kept their section. Most rows of a small change sit at the same offset from one
    /// another in both lists, so a two-pointer walk pairs them by comparing ids; only the rows it
    /// skips go through a hash table.
    mutating func matchWithinSections() {
        for (newSection, oldSection) in sections.oldIndex.enumerated() where oldSection >= 0 {
            let oldCells = old[oldSection].cells
            let newCells = new[newSection].cells
            var skippedOld: [Int] = []
            var skippedNew: [Int] = []
            var o = 0
            var n = 0
            while o < oldCells.count && n < newCells.count {
                if oldCells[o].id == newCells[n].id {
                    link(oldSection: oldSection, oldRow: o, newSection: newSection, newRow: n)
                    o += 1
                    n += 1
                } else if o + 1 < oldCells.count && oldCells[o + 1].id == newCells[n].id {
                    skippedOld.append(o)
                    o += 1
                } else if n + 1 < newCells.count && oldCells[o].id == newCells[n + 1].id {
                    skippedNew.append(n)
                    n += 1
                } else {
                    skippedOld.append(o)
                    skippedNew.append(n)
                    o += 1
                    n += 1
                }
            }
            skippedOld.append(contentsOf: o..<oldCells.count)
            skippedNew.append(contentsOf: n..<newCells.count)
            guard !skippedOld.isEmpty && !skippedNew.isEmpty else { continue }
            var unmatched = OccurrenceTable(positions: skippedOld) { oldCells[$0].id }
            for row in skippedNew {
                if let from = unmatched.take(newCells[row].id) {
                    link(oldSection: oldSection, oldRow: from, newSection: newSection, newRow: row)
                }
            }
        }
    }

    /// Pairs rows that changed section, between sections present in both models, in order of
    /// appearance when an id was left over more than once.
    mutating func matchAcrossSections() {
        var leftOver: [String: [Int]] = [:]
        for oldSection in old.indices.reversed() where sections.newIndex[oldSection] >= 0 {
            let cells = old[oldSection].cells
            for row in cells.indices.reversed() where oldMatch[oldSection][row] < 0 {
                leftOver[cells[row].id, default: []].append(PackedPath.pack(section: oldSection, row: row))
            }
        }
        guard !leftOver.isEmpty else { return }
        for (newSection, oldSection) in sections.oldIndex.enumerated() where oldSection >= 0 {
            let cells = new[newSection].cells
            for row in cells.indices where newMatch[newSection][row] < 0 {
                if let from = leftOver[cells[row].id]?.popLast() {
                    let path = PackedPath.unpack(from)
                    link(oldSection: path.section, oldRow: path.row, newSection: newSection, newRow: row)
                }
            }
        }
    }
}
