import Testing
import FluxTable

/// A golden table: the literal's lines, each ending in a newline as the renderer writes them.
private func golden(_ text: String) -> String {
    text + "\n"
}

private func render(_ model: TableViewModel, width: Int, color: Bool = false, unicode: Bool = true) -> String {
    TableRenderer(options: RenderOptions(width: width, color: color, unicode: unicode)).render(model)
}

@Suite("Table renderer")
struct TableRendererSpec {
    @Test("at 40 columns the widest column shrinks first, then both evenly, and cut text ends in …")
    func golden40() {
        #expect(render(issuesTable, width: 40) == golden("""

            Issues
              Open               12                ›
            ● Closed             340               ›
              Crash when the w…  needs triage by …
            Labels
              bug                red               ✓
              wontfix
            """))
    }

    @Test("at 100 columns everything fits, columns aligned across sections, no trailing spaces")
    func golden100() {
        #expect(render(issuesTable, width: 100) == golden("""

            Issues
              Open                                            12                                   ›
            ● Closed                                          340                                  ›
              Crash when the window is resized during a sync  needs triage by the on-call engineer
            Labels
              bug                                             red                                  ✓
              wontfix
            """))
    }

    @Test("without a UTF-8 locale the marks are ASCII: * selected, > disclosure, v checkmark, ... cut")
    func asciiMarks() {
        #expect(render(issuesTable, width: 40, unicode: false) == golden("""

            Issues
              Open               12                >
            * Closed             340               >
              Crash when the...  needs triage b...
            Labels
              bug                red               v
              wontfix
            """))
    }

    @Test("no line is wider than the terminal, from 18 to 120 columns")
    func fitsEveryWidth() {
        for width in 18...120 {
            for line in render(issuesTable, width: width).split(separator: "\n") {
                #expect(DisplayWidth.of(String(line)) <= width, "width \(width): \(line)")
            }
        }
    }

    @Test("wide characters, emoji and combining marks are measured by display width, so columns line up")
    func wideCharacters() {
        let model = TableViewModel(sections: [SectionModel(headerTitle: "世界の料理 🍣", cells: [
            CellViewModel(title: "寿司", detail: "日本", accessory: .checkmark),
            CellViewModel(title: "Cafe\u{301} au lait", detail: "France"),
            CellViewModel(title: "🍕 Pizza", detail: "Italia", accessory: .disclosure),
            CellViewModel(title: "ビビンバとキムチチゲ", detail: "한국 요리"),
        ])])
        #expect(render(model, width: 100) == golden("""
            世界の料理 🍣
              寿司                  日本      ✓
              Café au lait          France
              🍕 Pizza              Italia    ›
              ビビンバとキムチチゲ  한국 요리
            """))
        // 30 columns leave 24 for text: the title column shrinks from 20 to 15, cutting between
        // whole wide characters.
        #expect(render(model, width: 30) == golden("""
            世界の料理 🍣
              寿司             日本      ✓
              Café au lait     France
              🍕 Pizza         Italia    ›
              ビビンバとキム…  한국 요리
            """))
    }

    @Test("with colour on, headers are bold and disabled rows dim; escapes in text count zero columns")
    func colour() {
        let model = TableViewModel(sections: [SectionModel(headerTitle: "Peppers", cells: [
            CellViewModel(title: "\u{1B}[31mred\u{1B}[0m", detail: "hot"),
            CellViewModel(title: "green", detail: "mild", enabled: false),
        ])])
        #expect(render(model, width: 80, color: true) ==
            "\u{1B}[1mPeppers\u{1B}[0m\n"
            + "  \u{1B}[31mred\u{1B}[0m    hot\n"
            + "\u{1B}[2m  green  mild\u{1B}[0m\n")
    }

    @Test("with colour off, no escape sequence is written, not even ones inside the text")
    func noColour() {
        let model = TableViewModel(sections: [SectionModel(headerTitle: "Peppers", cells: [
            CellViewModel(title: "\u{1B}[31mred\u{1B}[0m", detail: "hot"),
            CellViewModel(title: "green", detail: "mild", enabled: false),
        ])])
        #expect(render(model, width: 80) == golden("""
            Peppers
              red    hot
              green  mild
            """))
    }

    @Test("header height becomes vertical space: none for nil, 0 or under 20, a blank line from 20 up")
    func headerHeight() {
        let model = TableViewModel(sections: [
            SectionModel(headerTitle: "A", cells: [CellViewModel(title: "a")]),
            SectionModel(headerTitle: "B", headerHeight: 0, cells: [CellViewModel(title: "b")]),
            SectionModel(headerTitle: "C", headerHeight: 19, cells: [CellViewModel(title: "c")]),
            SectionModel(headerTitle: "D", headerHeight: 28, cells: [CellViewModel(title: "d")]),
            SectionModel(headerTitle: "E", headerHeight: 44, cells: [CellViewModel(title: "e")]),
            SectionModel(headerHeight: 20, cells: [CellViewModel(title: "no header")]),
        ])
        #expect(render(model, width: 80) == golden("""
            A
              a
            B
              b
            C
              c

            D
              d

            E
              e

              no header
            """))
    }

    @Test("line breaks and tabs in text become spaces, so a row stays one line")
    func controlCharacters() {
        let model = TableViewModel(sections: [SectionModel(cells: [CellViewModel(title: "two\nlines\tand tab")])])
        #expect(render(model, width: 80) == "  two lines and tab\n")
    }

    @Test("an empty table renders nothing")
    func emptyTable() {
        #expect(render(TableViewModel(), width: 80) == "")
    }

    @Test("a header longer than the line is cut to the width")
    func longHeader() {
        let model = TableViewModel(sections: [SectionModel(headerTitle: String(repeating: "header ", count: 10))])
        #expect(render(model, width: 20) == "header header heade…\n")
    }
}
