import Flux
import FluxFeatures
import Testing

/// The issue store as a live query over the selected blueprint's issues.
@Suite("Issue store")
struct IssueStoreSpec {
    let dispatcher = Dispatcher()
    let store: IssueStore
    let view: StateRecorder<IssueState>

    init() {
        store = IssueStore(dispatcher: dispatcher, state: IssueState(currentUser: "ana", issues: [
            FluxFeatures.Issue(id: 1, blueprint: "A-101", title: "Crack in east wall"),
            FluxFeatures.Issue(id: 2, blueprint: "A-102", title: "Missing handrail", assignee: "ben"),
            FluxFeatures.Issue(id: 3, blueprint: "A-101", title: "Door swings the wrong way", status: .closed),
        ]))
        view = StateRecorder(store)
    }

    func select(_ blueprint: String) throws {
        try dispatcher.dispatch(IssueActions.SelectBlueprint(blueprint: blueprint))
    }

    @Test("a new store → shows no issues until a blueprint is selected")
    func nothingSelected() {
        #expect(view.last.selectedBlueprint == nil)
        #expect(view.last.issues.isEmpty)
    }

    @Test("selecting a blueprint → shows its issues and only its issues, oldest first")
    func selectingABlueprint() throws {
        try select("A-101")
        #expect(view.last.blueprint?.title == "Ground floor plan")
        #expect(view.last.issues.map(\.id) == [1, 3])

        try select("A-102")
        #expect(view.last.issues.map(\.title) == ["Missing handrail"])
    }

    @Test("selecting an unknown blueprint → is refused, listing the blueprints there are")
    func unknownBlueprint() throws {
        try select("A-101")

        let refused = refusal { try select("Z-999") }

        #expect(refused?.message.contains("unknown blueprint 'Z-999'; valid blueprints: A-101, A-102, S-201") == true)
        #expect(view.last.selectedBlueprint == "A-101")
    }

    @Test("creating an issue without a selected blueprint → is refused")
    func createWithoutBlueprint() {
        let refused = refusal { try dispatcher.dispatch(IssueActions.CreateIssue(title: "Leak")) }

        #expect(refused?.error as? IssueError == .noBlueprintSelected)
        #expect(view.changes == 0)
    }

    @Test("creating issues → gives them the next ids and shows them open on the selected blueprint")
    func creatingIssues() throws {
        try select("S-201")

        try dispatcher.dispatch(IssueActions.CreateIssue(title: "  Rebar exposed  ", assignee: "ana"))
        try dispatcher.dispatch(IssueActions.CreateIssue(title: "Formwork gap"))

        #expect(view.last.issues == [
            FluxFeatures.Issue(id: 4, blueprint: "S-201", title: "Rebar exposed", assignee: "ana"),
            FluxFeatures.Issue(id: 5, blueprint: "S-201", title: "Formwork gap"),
        ])
    }

    @Test("ids → are unique across blueprints and never reused")
    func idsAreUnique() throws {
        try select("S-201")
        try dispatcher.dispatch(IssueActions.CreateIssue(title: "Rebar exposed"))
        try dispatcher.undo()
        try select("A-102")
        try dispatcher.dispatch(IssueActions.CreateIssue(title: "Loose tile"))

        #expect(view.last.issues.map(\.id) == [2, 4])
        #expect(view.last.allIssues.map(\.id) == [1, 2, 3, 4])
    }

    @Test("creating or editing with a blank title → is refused", arguments: ["", "   "])
    func blankTitle(title: String) throws {
        try select("A-101")
        let before = store.state

        let create = refusal { try dispatcher.dispatch(IssueActions.CreateIssue(title: title)) }
        let edit = refusal { try dispatcher.dispatch(IssueActions.EditIssue(id: 1, title: title)) }

        #expect(create?.error as? IssueError == .emptyTitle)
        #expect(edit?.error as? IssueError == .emptyTitle)
        #expect(store.state == before)
    }

    @Test("editing an issue → renames it")
    func editing() throws {
        try select("A-101")

        try dispatcher.dispatch(IssueActions.EditIssue(id: 1, title: "Crack in east wall, 2 m long"))

        #expect(view.last.issue(1)?.title == "Crack in east wall, 2 m long")
    }

    @Test("assigning an issue → sets the assignee; assigning nobody → unassigns it")
    func assigning() throws {
        try select("A-102")

        try dispatcher.dispatch(IssueActions.AssignIssue(id: 2, assignee: "ana"))
        #expect(view.last.issue(2)?.assignee == "ana")

        try dispatcher.dispatch(IssueActions.AssignIssue(id: 2, assignee: nil))
        #expect(view.last.issue(2)?.assignee == nil)

        let blank = refusal { try dispatcher.dispatch(IssueActions.AssignIssue(id: 2, assignee: " ")) }
        #expect(blank?.error as? IssueError == .emptyAssignee)
    }

    @Test("an assign payload without an assignee, as a script writes it → unassigns")
    func assignPayloadWithoutAssignee() throws {
        try select("A-102")

        try dispatcher.dispatch(try dispatcher.registry.decode("issues.assign", json: #"{"id":2}"#))

        #expect(view.last.issue(2)?.assignee == nil)
    }

    @Test("closing an issue → closes it; closing it again → is refused")
    func closing() throws {
        try select("A-101")

        try dispatcher.dispatch(IssueActions.CloseIssue(id: 1))
        #expect(view.last.issue(1)?.status == .closed)

        let again = refusal { try dispatcher.dispatch(IssueActions.CloseIssue(id: 1)) }
        #expect(again?.error as? IssueError == .alreadyClosed(1))
        #expect(again?.message.contains("issue #1 is already closed") == true)
    }

    @Test("reopening a closed issue → opens it; reopening an open one → is refused")
    func reopening() throws {
        try select("A-101")

        try dispatcher.dispatch(IssueActions.ReopenIssue(id: 3))
        #expect(view.last.issue(3)?.status == .open)

        let again = refusal { try dispatcher.dispatch(IssueActions.ReopenIssue(id: 3)) }
        #expect(again?.error as? IssueError == .alreadyOpen(3))
    }

    @Test("acting on an unknown issue, or one on another blueprint → is refused naming the id")
    func unknownIssue() throws {
        try select("A-101")
        let before = store.state

        let unknown = refusal { try dispatcher.dispatch(IssueActions.CloseIssue(id: 42)) }
        let elsewhere = refusal { try dispatcher.dispatch(IssueActions.EditIssue(id: 2, title: "Moved")) }

        #expect(unknown?.message.contains("no issue #42 on blueprint A-101") == true)
        #expect(elsewhere?.error as? IssueError == .unknownIssue(2, blueprint: "A-101"))
        #expect(store.state == before)
    }

    @Test("undoing a close → reopens the issue")
    func undoClose() throws {
        try select("A-101")
        try dispatcher.dispatch(IssueActions.CloseIssue(id: 1))

        try dispatcher.undo()

        #expect(view.last.issue(1)?.status == .open)
    }
}
