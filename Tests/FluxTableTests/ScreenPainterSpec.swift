import FluxTable
import Testing

@Suite("Screen painter and table layout")
struct ScreenPainterSpec {
    private func lines(_ texts: [String], width: Int = 20) -> [ScreenLine] {
        texts.map { ScreenLine($0, width: width) }
    }

    @Test("the first screen is drawn whole; the next rewrites only the line that changed, with one cursor move")
    func partialRedraw() {
        var painter = ScreenPainter()
        let first = painter.paint(lines(["one", "two", "three"]), width: 20, height: 3)
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("\u{1B}[H\u{1B}[2J"))
        #expect(painter.linesWritten == 3)

        let second = painter.paint(lines(["one", "TWO", "three"]), width: 20, height: 3)
        #expect(String(decoding: second, as: UTF8.self) == "\u{1B}[2;1HTWO\u{1B}[K")
        #expect(painter.linesWritten == 1)

        #expect(painter.paint(lines(["one", "TWO", "three"]), width: 20, height: 3).isEmpty)
        painter.invalidate() // resumed after Ctrl-Z: everything again
        #expect(painter.paint(lines(["one", "TWO", "three"]), width: 20, height: 3).count > 20)
        // A line filling the width is not followed by a clear, which would erase its last character.
        let full = painter.paint(lines(["one", String(repeating: "x", count: 20), "three"]), width: 20, height: 3)
        #expect(String(decoding: full, as: UTF8.self) == "\u{1B}[2;1H" + String(repeating: "x", count: 20))
    }

    @Test("escape sequences and control characters in a title are printed harmless, never sent")
    func harmlessText() {
        let evil = "\u{1B}[2J\u{1B}]0;owned\u{7}ti\ttle\n\u{1B}[31mred"
        let plain = ScreenLine(evil, width: 40)
        #expect(!plain.bytes.contains(0x1B) && !plain.bytes.contains(0x07) && !plain.bytes.contains(0x0A))
        #expect(plain.text == "ti tle red")
        let model = TableViewModel(sections: [SectionModel(cells: [CellViewModel(id: "a", title: evil)])])
        let drawn = TableLayout(model).draw(
            line: 0, of: model, width: 40, options: RenderOptions(width: 40, color: true), cursor: nil, choice: nil)
        // Only the layout's own styles (SGR: ESC [ digits m) remain.
        let text = String(decoding: drawn.bytes, as: UTF8.self)
        #expect(!text.contains("\u{1B}]") && !text.contains("[2J") && !text.contains("[31m"))
    }

    @Test("a 10 KB title is cut to the line; a 1-column line holds one column")
    func longAndNarrow() {
        let long = String(repeating: "wide ", count: 2_000)
        let model = TableViewModel(sections: [SectionModel(cells: [CellViewModel(id: "a", title: long, detail: "d")])])
        let layout = TableLayout(model)
        let line = layout.draw(line: 0, of: model, width: 30, options: RenderOptions(width: 30), cursor: nil, choice: nil)
        #expect(line.columns <= 30 && line.text.hasSuffix("d"))
        let one = layout.draw(line: 0, of: model, width: 1, options: RenderOptions(width: 1),
                              cursor: RowPath(section: 0, row: 0), choice: nil)
        #expect(one.text == "▸" && one.columns == 1)
    }

    @Test("a million rows: any line is found and drawn without walking the rows; a change re-measures only its row")
    func millionRows() {
        let cells = (0 ..< 1_000_000).map { CellViewModel(id: String($0), title: "row \($0)") }
        let model = TableViewModel(sections: [SectionModel(id: "all", headerTitle: "All", cells: cells)])
        var layout = TableLayout(model)
        #expect(layout.lineCount == 1_000_001)
        #expect(layout.line(at: 999_999) == .cell(RowPath(section: 0, row: 999_998)))
        let options = RenderOptions(width: 40, unicode: false)
        #expect(layout.draw(line: 1_000_000, of: model, width: 40, options: options, cursor: nil, choice: nil).text
            == "   row 999999")

        // The diffs are written out: a million-row diff is the view's watch's work, not the layout's.
        func update(_ row: Int, from old: TableViewModel, to new: TableViewModel) {
            let path = RowPath(section: 0, row: row)
            layout.update(from: old, to: new, diff: TableDiff(rowUpdates: [RowUpdate(from: path, to: path, cell: new.cell(at: path)!)]))
        }
        var wider = model
        wider.sections[0].cells[5].title = "a title wider than every other one"
        update(5, from: model, to: wider)
        let drawn = layout.draw(line: 1, of: wider, width: 60, options: options, cursor: nil, choice: nil)
        #expect(drawn.text == "   row 0")
        // The detail-less, accessory-less row has no column after the title; give it a checkmark to see the width.
        var checked = wider
        checked.sections[0].cells[0].accessory = .checkmark
        update(0, from: wider, to: checked)
        #expect(layout.draw(line: 1, of: checked, width: 60, options: options, cursor: nil, choice: nil).text
            == "   row 0" + String(repeating: " ", count: 34 - 5) + " v")
        // Narrowed again, the column shrinks back: the widest is counted, not remembered.
        var narrow = checked
        narrow.sections[0].cells[5].title = "row 5"
        update(5, from: checked, to: narrow)
        #expect(layout.draw(line: 1, of: narrow, width: 60, options: options, cursor: nil, choice: nil).text
            == "   row 0" + String(repeating: " ", count: 10 - 5) + " v")
    }

    @Test("10,000 rows on a 100 × 50 screen: a one-row change writes about that row's bytes, not the screen's")
    func oneRowChangeWritesOneRow() {
        func model(_ detail: String) -> TableViewModel {
            TableViewModel(sections: (0 ..< 10).map { section in
                SectionModel(id: "s\(section)", headerTitle: "Section \(section)", cells: (0 ..< 1000).map { row in
                    CellViewModel(id: "\(section)-\(row)", title: "Row \(row) of section \(section)",
                                  detail: section == 0 && row == 10 ? detail : "value \(row)")
                })
            })
        }
        let old = model("before")
        let new = model("after!")
        let options = RenderOptions(width: 100, color: true)
        var layout = TableLayout(old)
        var painter = ScreenPainter()
        func frame(_ model: TableViewModel) -> [ScreenLine] {
            (0 ..< 50).map { layout.draw(line: $0, of: model, width: 100, options: options, cursor: nil, choice: nil) }
        }
        let whole = painter.paint(frame(old), width: 100, height: 50).count
        layout.update(from: old, to: new, diff: diff(old, new))
        let changed = frame(new)
        let written = painter.paint(changed, width: 100, height: 50)
        #expect(painter.linesWritten == 1)
        #expect(written.count <= changed[11].bytes.count + 12) // the row, a cursor move, a clear
        #expect(written.count * 20 < whole)
    }

    @Test("a row offering choices shows the chosen word in brackets, in the blanks around it")
    func choices() {
        let cell = CellViewModel(id: "r", title: "X . O", action: "game.play", payload: [["i": 0], ["i": 1], ["i": 2]])
        let model = TableViewModel(sections: [SectionModel(cells: [cell])])
        let layout = TableLayout(model)
        func draw(_ choice: Int) -> String {
            layout.draw(line: 0, of: model, width: 20, options: RenderOptions(width: 20), cursor: RowPath(section: 0, row: 0),
                        choice: choice).text
        }
        #expect(draw(0) == "▸ [X]. O")
        #expect(draw(1) == "▸  X[.]O")
        #expect(draw(2) == "▸  X .[O]")
    }

    @Test("a payload is plain data: it codes and round-trips, and reads as a Lua table")
    func payloadLuaSource() {
        let payload: CellPayload = ["id": 7, "tags": ["a", "b\n\"c\""], "ratio": 0.5, "on": true]
        #expect(payload.luaSource == #"{id = 7, on = true, ratio = 0.5, tags = {"a", "b\010\"c\""}}"#)
        #expect(CellPayload.object(["end": 1, "two words": 2]).luaSource == #"{["end"] = 1, ["two words"] = 2}"#)
    }
}
