import Flux
import FluxFeatures
import FluxTable
import Testing

/// The issue lists as the user sees them: the blueprint's issues, and the filtered list.
@Suite("Issue list view provider")
struct IssueListViewProviderSpec {
    let dispatcher = Dispatcher()
    let features: Features

    init() {
        features = FluxFeatures.install(on: dispatcher, currentUser: "ana")
    }

    var issues: TableViewModel { IssueListViewProvider.tableViewModel(for: features.issues.state) }
    var visible: TableViewModel { IssueListViewProvider.tableViewModel(for: features.visibleIssues.state) }

    func section(_ id: String, of model: TableViewModel) -> [String] {
        model.sections.first { $0.id == id }?.cells.map(\.title) ?? []
    }

    func fill() throws {
        try dispatcher.dispatch(IssueActions.SelectBlueprint(blueprint: "A-102"))
        try dispatcher.dispatch(IssueActions.CreateIssue(title: "Missing handrail", assignee: "ana"))
        try dispatcher.dispatch(IssueActions.CreateIssue(title: "Loose tile"))
        try dispatcher.dispatch(IssueActions.CreateIssue(title: "Water stain"))
        try dispatcher.dispatch(IssueActions.CloseIssue(id: 3))
    }

    @Test("before a blueprint is selected → says so")
    func noBlueprint() {
        #expect(visible.sections.flatMap(\.cells).map(\.title) == ["No blueprint selected"])
        #expect(visible.sections[0].cells[0].enabled == false)
    }

    @Test("issues → are listed under their blueprint, open and closed apart, with their assignee")
    func sections() throws {
        try fill()

        #expect(visible.sections.map(\.headerTitle) == ["A-102 First floor plan", "Open", "Closed"])
        #expect(section("open", of: visible) == ["#1 Missing handrail", "#2 Loose tile"])
        #expect(section("closed", of: visible) == ["#3 Water stain"])
        #expect(visible.sections[1].cells.map(\.detail) == ["ana", "unassigned"])
    }

    @Test("a filter → shrinks the visible list and says how many it hides; the issues view shows all")
    func filtered() throws {
        try fill()

        try dispatcher.dispatch(AnnotationFilterActions.ToggleFilter(.issueStatus))
        #expect(section("closed", of: visible).isEmpty)
        #expect(section("hidden", of: visible) == ["1 issue hidden by filters"])
        #expect(section("closed", of: issues) == ["#3 Water stain"])
        #expect(section("hidden", of: issues).isEmpty)

        try dispatcher.dispatch(AnnotationFilterActions.ToggleFilter(.issueAssignedToMe))
        #expect(section("open", of: visible) == ["#1 Missing handrail"])
        #expect(section("hidden", of: visible) == ["2 issues hidden by filters"])
    }

    @Test("closing an issue → moves its row from Open to Closed")
    func closingMovesTheRow() throws {
        try fill()
        let before = visible

        try dispatcher.dispatch(IssueActions.CloseIssue(id: 1))

        let changes = TableDiff(from: before, to: visible)
        #expect(changes.rowMoves.map(\.to) == [RowPath(section: 2, row: 0)])
        #expect(changes.rowMoves.map(\.from) == [RowPath(section: 1, row: 0)])
        #expect(changes.changeCount == 1)
    }
}
