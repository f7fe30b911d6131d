import Testing
import FluxTable

@Suite("Patch renderer")
struct PatchRendererSpec {
    let old = TableViewModel(sections: [
        SectionModel(id: "issues", headerTitle: "Issues", cells: [
            CellViewModel(title: "Open", detail: "12"),
            CellViewModel(title: "Closed", detail: "340"),
            CellViewModel(title: "Crash on launch", detail: "2"),
            CellViewModel(title: "Old bug"),
        ]),
        SectionModel(headerTitle: "Backlog", cells: [CellViewModel(title: "Rename"), CellViewModel(title: "Fix typo")]),
        SectionModel(headerTitle: "Archive", cells: [CellViewModel(title: "a"), CellViewModel(title: "b"), CellViewModel(title: "c")]),
        SectionModel(headerTitle: "Done", cells: [CellViewModel(title: "x")]),
    ])
    let new = TableViewModel(sections: [
        SectionModel(headerTitle: "Done", cells: [CellViewModel(title: "x")]),
        SectionModel(id: "issues", headerTitle: "Open issues", headerHeight: 28, cells: [
            CellViewModel(title: "Login fails"),
            CellViewModel(title: "Open", detail: "12"),
            CellViewModel(title: "Fix typo"),
            CellViewModel(title: "Crash on launch", detail: "3", selected: true),
            CellViewModel(title: "Closed", detail: "341", accessory: .checkmark, enabled: false),
        ]),
        SectionModel(headerTitle: "Backlog", cells: [CellViewModel(title: "Rename")]),
        SectionModel(headerTitle: "Triage", cells: [CellViewModel(title: "t1"), CellViewModel(title: "t2")]),
    ])

    private func patch(width: Int = 100, color: Bool = false, unicode: Bool = true) -> String {
        PatchRenderer(options: RenderOptions(width: width, color: color, unicode: unicode))
            .render(diff(old, new), from: old, to: new)
    }

    @Test("every kind of change is one line: + inserted, - deleted, ~ updated, > moved, with section names")
    func golden() {
        #expect(patch() == """
            - section Archive (3 rows)
            + section Triage (2 rows)
            > section Done (4 → 1)
            ~ section Open issues (header Issues → Open issues, height (none) → 28)
            - Issues: Old bug
            + Open issues: Login fails
            > Open issues: Fix typo (from Backlog)
            > Open issues: Crash on launch (row 3 → 4, detail 2 → 3, selected)
            ~ Open issues: Closed (detail 340 → 341, accessory none → checkmark, disabled)

            """)
    }

    @Test("without Unicode the arrows are ASCII; lines are cut to the width")
    func asciiAndNarrow() {
        #expect(patch(unicode: false).contains("> section Done (4 -> 1)"))
        #expect(patch(width: 30).split(separator: "\n").contains("~ section Open issues (header…"))
        #expect(patch(width: 30).split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 30 })
    }

    @Test("with colour on, inserts are green, deletes red, updates yellow, moves cyan; section lines bold")
    func colour() {
        let lines = patch(color: true).split(separator: "\n")
        #expect(lines[0] == "\u{1B}[1;31m- section Archive (3 rows)\u{1B}[0m")
        #expect(lines[1] == "\u{1B}[1;32m+ section Triage (2 rows)\u{1B}[0m")
        #expect(lines[5] == "\u{1B}[32m+ Open issues: Login fails\u{1B}[0m")
        #expect(lines[6].hasPrefix("\u{1B}[36m> "))
        #expect(lines[8].hasPrefix("\u{1B}[33m~ "))
    }

    @Test("an empty diff renders nothing")
    func empty() {
        #expect(PatchRenderer(options: RenderOptions()).render(diff(old, old), from: old, to: old) == "")
    }
}
