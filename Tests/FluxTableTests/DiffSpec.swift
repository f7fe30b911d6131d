import Testing
import FluxTable

/// A section of plain rows, one per title.
func section(_ header: String, _ titles: [String]) -> SectionModel {
    SectionModel(headerTitle: header, cells: titles.map { CellViewModel(title: $0) })
}

func path(_ section: Int, _ row: Int) -> RowPath {
    RowPath(section: section, row: row)
}

@Suite("Table diff")
struct DiffSpec {
    @Test("equal models give the empty diff")
    func noOp() throws {
        let model = TableViewModel(sections: [section("A", ["a", "b"]), section("B", ["c"])])
        let changes = diff(model, model)
        #expect(changes.isEmpty)
        #expect(changes == TableDiff())
        #expect(try model.applying(changes) == model)
    }

    @Test("a row that goes to another section is one move, from its old path to its new one")
    func moveBetweenSections() throws {
        let old = TableViewModel(sections: [section("A", ["a", "b"]), section("B", ["c"])])
        let new = TableViewModel(sections: [section("A", ["a"]), section("B", ["c", "b"])])
        let changes = diff(old, new)
        #expect(changes == TableDiff(rowMoves: [RowMove(from: path(0, 1), to: path(1, 1))]))
        #expect(try old.applying(changes) == new)
    }

    @Test("deleting a section deletes its rows with it, and the sections after it are not moves")
    func sectionDeleteWithRows() throws {
        let old = TableViewModel(sections: [section("A", ["a", "b"]), section("B", ["c"]), section("C", ["d"])])
        let new = TableViewModel(sections: [section("B", ["c"]), section("C", ["d"])])
        let changes = diff(old, new)
        #expect(changes == TableDiff(sectionDeletes: [0]))
        #expect(try old.applying(changes) == new)
    }

    @Test("an inserted section carries its rows, which are not listed as row inserts")
    func sectionInsertWithRows() throws {
        let old = TableViewModel(sections: [section("B", ["c"])])
        let new = TableViewModel(sections: [section("A", ["a", "b"]), section("B", ["c"])])
        let changes = diff(old, new)
        #expect(changes == TableDiff(sectionInserts: [SectionInsert(index: 0, section: section("A", ["a", "b"]))]))
        #expect(try old.applying(changes) == new)
    }

    @Test("deletes count in old indices, inserts in new indices")
    func indexSemantics() throws {
        let old = TableViewModel(sections: [section("S", ["a", "b", "c", "d"])])
        let new = TableViewModel(sections: [section("S", ["a", "x", "c", "d", "y"])])
        let changes = diff(old, new)
        #expect(changes == TableDiff(
            rowDeletes: [path(0, 1)],
            rowInserts: [RowInsert(path: path(0, 1), cell: CellViewModel(title: "x")),
                         RowInsert(path: path(0, 4), cell: CellViewModel(title: "y"))]))
        #expect(try old.applying(changes) == new)
    }

    @Test("moving the last row to the top is one move, not a move of every row")
    func minimalMoves() throws {
        let old = TableViewModel(sections: [section("S", ["a", "b", "c", "d"])])
        let new = TableViewModel(sections: [section("S", ["d", "a", "b", "c"])])
        let changes = diff(old, new)
        #expect(changes == TableDiff(rowMoves: [RowMove(from: path(0, 3), to: path(0, 0))]))
        #expect(try old.applying(changes) == new)
    }

    @Test("moving a row down the list is one move, not a move of every row it passed")
    func moveDown() throws {
        let titles = (0..<10).map { "r\($0)" }
        var reordered = titles
        reordered.insert(reordered.remove(at: 1), at: 8)
        let old = TableViewModel(sections: [section("S", titles)])
        let new = TableViewModel(sections: [section("S", reordered)])
        let changes = diff(old, new)
        #expect(changes == TableDiff(rowMoves: [RowMove(from: path(0, 1), to: path(0, 8))]))
        #expect(try old.applying(changes) == new)
    }

    @Test("reordering sections moves only the section that changed place; row paths use each side's index")
    func sectionMove() throws {
        let old = TableViewModel(sections: [section("A", ["a"]), section("B", ["b"]), section("C", ["c", "z"])])
        let new = TableViewModel(sections: [section("C", ["z", "c"]), section("A", ["a"]), section("B", ["b"])])
        let changes = diff(old, new)
        #expect(changes.sectionMoves == [SectionMove(from: 2, to: 0)])
        #expect(changes.rowMoves == [RowMove(from: path(2, 1), to: path(0, 0))])
        #expect(try old.applying(changes) == new)
    }

    @Test("a kept row whose content changed is an update carrying the new content")
    func update() throws {
        let old = TableViewModel(sections: [section("S", ["a", "b"])])
        var new = old
        new.sections[0].cells[1].detail = "3"
        new.sections[0].cells[1].selected = true
        let changes = diff(old, new)
        #expect(changes == TableDiff(rowUpdates: [RowUpdate(from: path(0, 1), to: path(0, 1), cell: new.sections[0].cells[1])]))
        #expect(try old.applying(changes) == new)
    }

    @Test("a row that moved and changed is both a move and an update")
    func moveAndUpdate() throws {
        let old = TableViewModel(sections: [section("S", ["a", "b", "c"])])
        var moved = CellViewModel(title: "c")
        moved.accessory = .checkmark
        let new = TableViewModel(sections: [SectionModel(headerTitle: "S", cells: [moved, CellViewModel(title: "a"), CellViewModel(title: "b")])])
        let changes = diff(old, new)
        #expect(changes.rowMoves == [RowMove(from: path(0, 2), to: path(0, 0))])
        #expect(changes.rowUpdates == [RowUpdate(from: path(0, 2), to: path(0, 0), cell: moved)])
        #expect(try old.applying(changes) == new)
    }

    @Test("a header change keeps a section with an explicit id, but replaces one identified by its header")
    func headerChanges() throws {
        let old = TableViewModel(sections: [SectionModel(id: "open", headerTitle: "Open", cells: [CellViewModel(title: "a")])])
        let renamed = TableViewModel(sections: [SectionModel(id: "open", headerTitle: "Open (1)", headerHeight: 28, cells: [CellViewModel(title: "a")])])
        let changes = diff(old, renamed)
        #expect(changes == TableDiff(sectionUpdates: [SectionUpdate(from: 0, to: 0, headerTitle: "Open (1)", headerHeight: 28)]))
        #expect(try old.applying(changes) == renamed)

        let byHeader = diff(TableViewModel(sections: [section("Open", ["a"])]), TableViewModel(sections: [section("Open (1)", ["a"])]))
        #expect(byHeader.sectionDeletes == [0])
        #expect(byHeader.sectionInserts.map(\.index) == [0])
    }

    @Test("a row leaving a deleted section for a kept one is inserted there, not moved")
    func noMoveOutOfDeletedSection() throws {
        let old = TableViewModel(sections: [section("A", ["a", "b"]), section("B", ["c"])])
        let new = TableViewModel(sections: [section("B", ["c", "b"])])
        let changes = diff(old, new)
        #expect(changes == TableDiff(sectionDeletes: [0], rowInserts: [RowInsert(path: path(0, 1), cell: CellViewModel(title: "b"))]))
        #expect(try old.applying(changes) == new)
    }

    @Test("applying a diff to a model it was not made from throws")
    func applyingToTheWrongModel() {
        let old = TableViewModel(sections: [section("A", ["a", "b", "c"])])
        let new = TableViewModel(sections: [section("A", ["a"])])
        let changes = diff(old, new)
        #expect(throws: TableDiffError.self) { try new.applying(changes) }
        #expect(throws: TableDiffError.self) { try TableViewModel().applying(changes) }
    }

    @Test("diffing 10,000 rows with 1% changed finds exactly those changes")
    func largeModel() throws {
        let old = TableViewModel(sections: [SectionModel(id: "all", cells: (0..<10_000).map { CellViewModel(title: "row \($0)", detail: "\($0)") })])
        var new = old
        for row in stride(from: 50, to: 10_000, by: 200) {
            new.sections[0].cells[row].detail = "changed"
        }
        new.sections[0].cells.remove(at: 9_000)
        new.sections[0].cells.insert(CellViewModel(title: "fresh"), at: 10)
        let changes = diff(old, new)
        #expect(changes.rowUpdates.count == 50)
        #expect(changes.rowDeletes == [path(0, 9_000)])
        #expect(changes.rowInserts.map(\.path) == [path(0, 10)])
        #expect(changes.rowMoves.isEmpty)
        #expect(try old.applying(changes) == new)
    }
}
