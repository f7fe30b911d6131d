// Heckel's diff ("A technique for isolating differences between files", 1978), as IGListKit and
// DifferenceKit use it: match entries by identity through a hash table in linear time, then derive
// inserts, deletes, moves and updates from the matches. Identities here are unique within a section,
// so the table only has to find each entry's single partner.
//
// Moves are the fewest that explain the new order: the kept entries outside a longest increasing
// subsequence of old indices. The one-pass rule of DifferenceKit (an entry stays when it is the first
// old entry not yet placed) is linear but calls every row between a row's old and new place a move when
// that row moves down; the subsequence costs O(k log k) for the k kept entries, and nothing at all when
// no entry changed order, the usual case.

extension TableDiff {
    /// The changes from `old` to `new`, in time linear in the number of sections and rows (plus
    /// O(k log k) for the k kept rows of a section whose rows changed order).
    ///
    /// Repeated ids (which ``TableViewModel/validate()`` rejects) still give a correct diff: they pair
    /// up in order of appearance, and the ones left over are deleted or inserted.
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
        let keptSections = sections.oldIndex.filter { $0 >= 0 }
        let unmovedSections = unmovedMask(keptSections)
        var kept = 0
        for (index, from) in sections.oldIndex.enumerated() where from >= 0 {
            if unmovedSections?[kept] == false {
                sectionMoves.append(SectionMove(from: from, to: index))
            }
            kept += 1
        }

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
        var sameSection: [Int] = []
        for (newSection, matches) in rows.newMatch.enumerated() {
            let oldSection = sections.oldIndex[newSection]
            guard oldSection >= 0, !rows.unchanged[newSection] else { continue }
            let newCells = new[newSection].cells
            // Rows that stayed in the section keep their place when they are in order.
            sameSection.removeAll(keepingCapacity: true)
            for match in matches where match >= 0 && PackedPath.section(match) == oldSection {
                sameSection.append(PackedPath.unpack(match).row)
            }
            let unmoved = unmovedMask(sameSection)
            var kept = 0
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
                    if unmoved?[kept] == false {
                        rowMoves.append(RowMove(from: from, to: to))
                    }
                    kept += 1
                }
                if old[from.section].cells[from.row] != newCells[row] {
                    rowUpdates.append(RowUpdate(from: from, to: to, cell: newCells[row]))
                }
            }
        }
    }
}

/// For old indices listed in new order, which of them keep their place: those in a longest increasing
/// subsequence (patience sorting with binary search). Nil when all do, found in one pass.
private func unmovedMask(_ oldIndices: [Int]) -> [Bool]? {
    var ordered = true
    for index in oldIndices.indices.dropFirst() where oldIndices[index - 1] > oldIndices[index] {
        ordered = false
        break
    }
    if ordered { return nil }
    // tails[k]: the position ending the best increasing run of length k + 1 found so far.
    var tails: [Int] = []
    var previous = [Int](repeating: -1, count: oldIndices.count)
    for (position, value) in oldIndices.enumerated() {
        var low = 0
        var high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if oldIndices[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        if low > 0 { previous[position] = tails[low - 1] }
        if low == tails.count { tails.append(position) } else { tails[low] = position }
    }
    var mask = [Bool](repeating: false, count: oldIndices.count)
    var position = tails.last ?? -1
    while position >= 0 {
        mask[position] = true
        position = previous[position]
    }
    return mask
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
    /// For each new section, whether its rows are the old section's, equal and in the same order: then
    /// nothing of it changed. At once when both are one array (a Lua view's section kept from the render
    /// before), so a one-row change in a large table does not compare every row.
    var unchanged: [Bool]

    init(old: [SectionModel], new: [SectionModel], sections: SectionMatching) {
        self.old = old
        self.new = new
        self.sections = sections
        oldMatch = old.map { [Int](repeating: -1, count: $0.cells.count) }
        newMatch = new.map { [Int](repeating: -1, count: $0.cells.count) }
        unchanged = [Bool](repeating: false, count: new.count)
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
            if oldCells == newCells {
                for row in newCells.indices { link(oldSection: oldSection, oldRow: row, newSection: newSection, newRow: row) }
                unchanged[newSection] = true
                continue
            }
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
