@testable import Flux
import FluxFeatures
import Testing

/// The derived issue list: the issue store seen through the annotation filter.
@Suite("Visible issues store")
struct VisibleIssuesStoreSpec {
    let dispatcher = Dispatcher()
    let filters: AnnotationFilterStore
    let issues: IssueStore
    let visible: VisibleIssuesStore
    let view: StateRecorder<VisibleIssuesState>

    init() throws {
        filters = AnnotationFilterStore(dispatcher: dispatcher)
        issues = IssueStore(dispatcher: dispatcher, state: IssueState(currentUser: "ana"))
        visible = VisibleIssuesStore(dispatcher: dispatcher, issues: issues, filters: filters)
        view = StateRecorder(visible)
        try dispatcher.dispatch(IssueActions.SelectBlueprint(blueprint: "A-101"))
        try create("Crack in east wall", assignee: "ana")   // 1
        try create("Missing handrail", assignee: "ben")     // 2
        try create("Loose tile")                            // 3
        try dispatcher.dispatch(IssueActions.CloseIssue(id: 1))
        dispatcher.history.clear()
    }

    func create(_ title: String, assignee: String? = nil) throws {
        try dispatcher.dispatch(IssueActions.CreateIssue(title: title, assignee: assignee))
    }

    func toggle(_ kinds: AnnotationFilterKind...) throws {
        for kind in kinds { try dispatcher.dispatch(AnnotationFilterActions.ToggleFilter(kind)) }
    }

    var shown: [Int] { view.last.issues.map(\.id) }

    @Test("with no filter → shows every issue of the selected blueprint")
    func unfiltered() {
        #expect(view.last.blueprint?.id == "A-101")
        #expect(shown == [1, 2, 3])
        #expect(view.last.hiddenCount == 0)
        #expect(!view.last.isFiltering)
    }

    @Test("creating and closing issues → updates the list")
    func creatingAndClosing() throws {
        try create("Water stain on ceiling")
        #expect(shown == [1, 2, 3, 4])

        try dispatcher.dispatch(IssueActions.CloseIssue(id: 4))
        #expect(view.last.issues(.closed).map(\.id) == [1, 4])
        #expect(view.last.issues(.open).map(\.id) == [2, 3])
    }

    @Test("selecting another blueprint → shows its issues")
    func selectingAnotherBlueprint() throws {
        try dispatcher.dispatch(IssueActions.SelectBlueprint(blueprint: "A-102"))

        #expect(view.last.blueprint?.id == "A-102")
        #expect(shown.isEmpty)
    }

    @Test("'Open issues only' → hides closed issues; toggled off → shows them again")
    func statusFilter() throws {
        try toggle(.issueStatus)
        #expect(shown == [2, 3])
        #expect(view.last.hiddenCount == 1)
        #expect(view.last.isFiltering)

        try toggle(.issueStatus)
        #expect(shown == [1, 2, 3])
    }

    @Test("'Assigned to me' → shows the current user's issues only")
    func assignedToMe() throws {
        try toggle(.issueAssignedToMe)

        #expect(shown == [1])
    }

    @Test("'Unassigned' → shows issues nobody is assigned to; with 'Assigned to me' → shows either")
    func unassigned() throws {
        try toggle(.issueUnassigned)
        #expect(shown == [3])

        try toggle(.issueAssignedToMe)
        #expect(shown == [1, 3])
    }

    @Test("filters of different groups → narrow each other")
    func filtersCombine() throws {
        try toggle(.issueAssignedToMe, .issueUnassigned, .issueStatus)

        #expect(shown == [3])
    }

    @Test("assigning an issue to me while 'Assigned to me' is on → brings it into the list")
    func assigningUnderFilter() throws {
        try toggle(.issueAssignedToMe)

        try dispatcher.dispatch(IssueActions.AssignIssue(id: 2, assignee: "ana"))

        #expect(shown == [1, 2])
    }

    @Test("hide everything → hides every issue")
    func hideEverything() throws {
        try toggle(.hideEverything)

        #expect(shown.isEmpty)
        #expect(view.last.hiddenCount == 3)
    }

    @Test("filtering other annotation types only → hides issues; an issue filter then brings them back")
    func annotationTypes() throws {
        try toggle(.photo)
        #expect(shown.isEmpty)

        try toggle(.issueStatus)
        #expect(shown == [2, 3])
    }

    @Test("share status 'Private' only → hides issues, which are always shared; with 'Shared' → shows them")
    func shareStatus() throws {
        try toggle(.privateToMe)
        #expect(shown.isEmpty)

        try toggle(.shared)
        #expect(shown == [1, 2, 3])
    }

    @Test("an issue action → reaches the list in the same dispatch, heard once, logged as one change")
    func waitForOrder() throws {
        var log: [String] = []
        dispatcher.middleware.append(LoggingMiddleware { log.append($0) })
        // A view of the issue store reads the derived list the moment it hears a change.
        var seenByIssueView: [Int] = []
        let issueView = issues.subscribe { _ in seenByIssueView = visible.state.issues.map(\.id) }
        defer { issueView.cancel() }
        let heardBefore = view.changes

        try create("Water stain on ceiling")

        #expect(view.changes == heardBefore + 1)
        #expect(shown == [1, 2, 3, 4])
        #expect(seenByIssueView == [1, 2, 3, 4])
        #expect(log.last?.hasSuffix("changed issues, visibleIssues") == true)
    }

    @Test("undo and redo → move the issue store and the list together, one user action per step")
    func undoTogether() throws {
        try dispatcher.dispatch(IssueActions.CloseIssue(id: 2))
        try toggle(.issueStatus)
        #expect(shown == [3])

        try dispatcher.undo()
        #expect(!filters.state.isFiltering)
        #expect(shown == [1, 2, 3])
        #expect(view.last.issues(.closed).map(\.id) == [1, 2])

        try dispatcher.undo()
        #expect(issues.state.issue(2)?.status == .open)
        #expect(view.last.issues(.closed).map(\.id) == [1])

        try dispatcher.redo()
        #expect(view.last.issues(.closed).map(\.id) == [1, 2])
    }

    @Test("an issue action that fails → leaves both stores unchanged and tells no view")
    func rollback() throws {
        try toggle(.issueStatus)
        let issuesBefore = issues.state
        let visibleBefore = visible.state
        let heardBefore = view.changes

        let refused = refusal { try dispatcher.dispatch(IssueActions.CloseIssue(id: 1)) }

        #expect(refused?.error as? IssueError == .alreadyClosed(1))
        #expect(issues.state == issuesBefore)
        #expect(visible.state == visibleBefore)
        #expect(view.changes == heardBefore)
    }
}

/// The inter-store dependency under the hardest order: a store that needs the visible list is
/// registered before the list and its sources, so only `waitFor` can make the sources run first.
@Suite("Visible issues store, waited for by an earlier store")
struct VisibleIssuesWaitForSpec {
    let dispatcher = Dispatcher()
    let limit: OpenIssueLimit
    let issues: IssueStore
    let visible: VisibleIssuesStore

    init() throws {
        limit = OpenIssueLimit(dispatcher: dispatcher, limit: 3)
        let filters = AnnotationFilterStore(dispatcher: dispatcher)
        issues = IssueStore(dispatcher: dispatcher)
        visible = VisibleIssuesStore(dispatcher: dispatcher, issues: issues, filters: filters)
        limit.source = visible
        try dispatcher.dispatch(IssueActions.SelectBlueprint(blueprint: "A-101"))
    }

    func create(_ title: String) throws {
        try dispatcher.dispatch(IssueActions.CreateIssue(title: title))
    }

    @Test("creating an issue → the list and the store waiting for it see it in the same dispatch")
    func sameDispatch() throws {
        try create("Crack in east wall")
        try create("Missing handrail")

        #expect(visible.state.issues.map(\.id) == [1, 2])
        #expect(limit.state == 2)
    }

    @Test("an issue action the waiting store refuses after the list changed → rolls back every store")
    func rollbackAfterDerivedChanged() throws {
        try create("Crack in east wall")
        try create("Missing handrail")
        try create("Loose tile")
        let issuesBefore = issues.state
        let visibleBefore = visible.state
        let view = StateRecorder(visible)

        let refused = refusal { try create("Water stain on ceiling") }

        #expect(refused?.message.contains("more than 3 open issues") == true)
        #expect(issues.state == issuesBefore)
        #expect(visible.state == visibleBefore)
        #expect(limit.state == 3)
        #expect(view.changes == 0)
        #expect(dispatcher.history.undoLabels.last == IssueActions.CreateIssue.name)
        try dispatcher.undo()
        #expect(visible.state.issues.map(\.id) == [1, 2])
    }
}

/// A business rule of another feature: refuses any action after which the visible list would hold
/// more than `limit` open issues. Its state is the open-issue count it last saw.
final class OpenIssueLimit: Store<Int> {
    struct TooMany: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "more than \(limit) open issues" }
    }

    /// Set after the list exists, which is registered after this store.
    var source: VisibleIssuesStore?

    init(dispatcher: Dispatcher, limit: Int) {
        super.init(name: "openIssueLimit", state: 0, dispatcher: dispatcher)
        onEveryAction { [unowned self] count, _ in
            guard let source = self.source else { return }
            try dispatcher.waitFor([source.token])
            count = source.state.issues(.open).count
            if count > limit { throw TooMany(limit: limit) }
        }
    }
}

/// The list registered before the stores it derives from: the dispatcher hands every action to it first,
/// so only its `waitFor` brings the new issues and filters in before it recomputes.
@Suite("Visible issues store, registered before its sources")
struct VisibleIssuesOrderSpec {
    @Test("creating an issue or changing the filter → the list shows it in the same dispatch, as when registered last")
    func derivedRegisteredFirst() throws {
        let dispatcher = Dispatcher()
        let filters = AnnotationFilterStore(dispatcher: dispatcher)
        let issues = IssueStore(dispatcher: dispatcher, state: IssueState(currentUser: "ana"))
        let visible = VisibleIssuesStore(dispatcher: dispatcher, issues: issues, filters: filters)
        // Register the sources again, so that they come after the list in the dispatcher's order.
        try dispatcher.unregister(issues.token)
        issues.registration = dispatcher.register(issues)
        try dispatcher.unregister(filters.token)
        filters.registration = dispatcher.register(filters)
        #expect(dispatcher.stores.map(\.name) == [VisibleIssuesStore.storeName, IssueStore.storeName, AnnotationFilterStore.storeName])
        let view = StateRecorder(visible)

        try dispatcher.dispatch(IssueActions.SelectBlueprint(blueprint: "A-101"))
        try dispatcher.dispatch(IssueActions.CreateIssue(title: "Crack in east wall", assignee: "ben"))
        #expect(visible.state.issues.map(\.title) == ["Crack in east wall"])

        try dispatcher.dispatch(AnnotationFilterActions.ToggleFilter(.issueAssignedToMe))
        #expect(visible.state.issues.isEmpty)
        #expect(view.changes == 3)
    }
}
