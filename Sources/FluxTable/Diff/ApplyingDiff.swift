extension TableViewModel {
    /// The model `diff` leads to from this one, rebuilt from this model and the diff alone, following
    /// the index rules of ``TableDiff``: remove deletes and moved entries (old indices), place inserts
    /// and moved entries (new indices), fill the other places with the remaining entries in order, then
    /// apply updates.
    ///
    /// `TableViewModel.applying(TableDiff(from: a, to: b))` on `a` equals `b`. Throws a
    /// ``TableDiffError`` when the diff does not fit this model (an index out of range, an entry removed
    /// or placed twice).
    public func applying(_ diff: TableDiff) throws -> TableViewModel {
        let old = sections
        let newCount = old.count - diff.sectionDeletes.count + diff.sectionInserts.count
        guard newCount >= 0 else {
            throw TableDiffError("\(diff.sectionDeletes.count) section deletes, but only \(old.count) sections")
        }

        // Sections: which old section (or which insert) each new index holds.
        var removed = [Bool](repeating: false, count: old.count)
        func remove(_ index: Int, _ what: String) throws {
            guard old.indices.contains(index) else {
                throw TableDiffError("\(what) of section \(index), but there are \(old.count) sections")
            }
            guard !removed[index] else { throw TableDiffError("section \(index) is deleted or moved twice") }
            removed[index] = true
        }
        for index in diff.sectionDeletes { try remove(index, "delete") }
        for move in diff.sectionMoves { try remove(move.from, "move") }

        var slots = [SectionSlot](repeating: .free, count: newCount)
        func place(_ slot: SectionSlot, at index: Int, _ what: String) throws {
            guard slots.indices.contains(index) else {
                throw TableDiffError("\(what) at section \(index), but the result has \(newCount) sections")
            }
            guard case .free = slots[index] else { throw TableDiffError("section \(index) is filled twice") }
            slots[index] = slot
        }
        for (number, insert) in diff.sectionInserts.enumerated() {
            try place(.inserted(number), at: insert.index, "insert")
        }
        for move in diff.sectionMoves { try place(.old(move.from), at: move.to, "move") }
        var unmoved = old.indices.lazy.filter { !removed[$0] }.makeIterator()
        for index in slots.indices {
            if case .free = slots[index] {
                guard let from = unmoved.next() else { throw TableDiffError("section \(index) is left empty") }
                slots[index] = .old(from)
            }
        }
        guard unmoved.next() == nil else { throw TableDiffError("more sections remain than the result holds") }

        // Rows: what leaves each old section, what arrives in each new one.
        var oldSectionTo = [Int](repeating: -1, count: old.count)
        for (index, slot) in slots.enumerated() {
            if case .old(let from) = slot { oldSectionTo[from] = index }
        }
        var leaving = old.map { [Bool](repeating: false, count: $0.cells.count) }
        func leave(_ path: RowPath, _ what: String) throws {
            guard old.indices.contains(path.section), oldSectionTo[path.section] >= 0,
                  old[path.section].cells.indices.contains(path.row) else {
                throw TableDiffError("\(what) of row \(path), which is not in a kept section")
            }
            guard !leaving[path.section][path.row] else {
                throw TableDiffError("row \(path) is deleted or moved twice")
            }
            leaving[path.section][path.row] = true
        }
        for path in diff.rowDeletes { try leave(path, "delete") }
        for move in diff.rowMoves { try leave(move.from, "move") }

        var arriving = [[(row: Int, cell: CellViewModel)]](repeating: [], count: newCount)
        func arrive(_ cell: CellViewModel, at path: RowPath, _ what: String) throws {
            guard slots.indices.contains(path.section), case .old = slots[path.section] else {
                throw TableDiffError("\(what) at row \(path), which is not in a kept section")
            }
            arriving[path.section].append((path.row, cell))
        }
        for insert in diff.rowInserts { try arrive(insert.cell, at: insert.path, "insert") }
        for move in diff.rowMoves {
            try arrive(old[move.from.section].cells[move.from.row], at: move.to, "move")
        }

        var result: [SectionModel] = []
        result.reserveCapacity(newCount)
        for (index, slot) in slots.enumerated() {
            switch slot {
            case .free:
                preconditionFailure("every slot was filled above")
            case .inserted(let number):
                result.append(diff.sectionInserts[number].section)
            case .old(let from):
                var section = old[from]
                section.cells = try Self.rows(
                    of: old[from].cells, leaving: leaving[from], arriving: arriving[index], section: index)
                result.append(section)
            }
        }

        for update in diff.sectionUpdates {
            guard result.indices.contains(update.to) else {
                throw TableDiffError("header update of section \(update.to), but the result has \(newCount)")
            }
            result[update.to].headerTitle = update.headerTitle
            result[update.to].headerHeight = update.headerHeight
        }
        for update in diff.rowUpdates {
            guard result.indices.contains(update.to.section),
                  result[update.to.section].cells.indices.contains(update.to.row) else {
                throw TableDiffError("update of row \(update.to), which is not in the result")
            }
            guard result[update.to.section].cells[update.to.row].id == update.cell.id else {
                throw TableDiffError("update of row \(update.to) to id '\(update.cell.id)', but the row there "
                    + "is '\(result[update.to.section].cells[update.to.row].id)'")
            }
            result[update.to.section].cells[update.to.row] = update.cell
        }
        return TableViewModel(sections: result)
    }

    /// One section's rows: the old rows not leaving, in order, around the arriving rows at their places.
    private static func rows(
        of cells: [CellViewModel], leaving: [Bool], arriving: [(row: Int, cell: CellViewModel)], section: Int
    ) throws -> [CellViewModel] {
        let staying = leaving.lazy.filter { !$0 }.count
        let count = staying + arriving.count
        var placed = [CellViewModel?](repeating: nil, count: count)
        for (row, cell) in arriving {
            guard placed.indices.contains(row) else {
                throw TableDiffError("row \(section).\(row) is past the end of section \(section) (\(count) rows)")
            }
            guard placed[row] == nil else { throw TableDiffError("row \(section).\(row) is filled twice") }
            placed[row] = cell
        }
        var result: [CellViewModel] = []
        result.reserveCapacity(count)
        var next = 0
        for row in 0..<count {
            if let cell = placed[row] {
                result.append(cell)
                continue
            }
            while leaving[next] { next += 1 }
            result.append(cells[next])
            next += 1
        }
        return result
    }
}

/// What a section of the result holds while a diff is applied.
private enum SectionSlot {
    case free
    case old(Int)
    case inserted(Int)
}
