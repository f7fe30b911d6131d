import Flux
import FluxTable
import FluxViews

/// The features FluxShell ships, as stores registered on one dispatcher, with a view for each store.
///
/// ```swift
/// let features = FluxFeatures.install(on: dispatcher)
/// try dispatcher.dispatch(TicTacToeActions.placeToken(atIndex: 4))
/// let model = try features.view(named: "ticTacToe")?.model()
/// ```
public struct Features {
    /// The filters of the annotation list (`annotationFilter`).
    public let annotationFilter: AnnotationFilterStore
    /// The issues on the selected blueprint (`issues`).
    public let issues: IssueStore
    /// The issues the filter lets through (`visibleIssues`), derived from the two stores above.
    public let visibleIssues: VisibleIssuesStore
    /// A tic-tac-toe game (`ticTacToe`).
    public let ticTacToe: TicTacToeStore
    /// A connect-four game (`connectFour`).
    public let connectFour: ConnectFourStore
    /// One view per store, named as the store it renders, in the order the stores were registered.
    public let views: [ViewProvider]

    /// The stores, in registration order.
    public var stores: [any StoreProtocol] {
        [annotationFilter, issues, visibleIssues, ticTacToe, connectFour]
    }

    /// The view called `name`.
    public func view(named name: String) -> ViewProvider? {
        views.first { $0.name == name }
    }
}

/// Creates every shipped store on `dispatcher` and returns them with their views; call it as
/// `FluxFeatures.install(on:)`.
///
/// The stores are named `annotationFilter`, `issues`, `visibleIssues`, `ticTacToe` and `connectFour`,
/// and so are their views. The issue store starts with the sample blueprints, none selected and no
/// issues; "assigned to me" means `currentUser`.
public func install(on dispatcher: Dispatcher, currentUser: String = "me") -> Features {
    let annotationFilter = AnnotationFilterStore(dispatcher: dispatcher)
    let issues = IssueStore(dispatcher: dispatcher, state: IssueState(currentUser: currentUser))
    let visibleIssues = VisibleIssuesStore(dispatcher: dispatcher, issues: issues, filters: annotationFilter)
    let ticTacToe = TicTacToeStore(dispatcher: dispatcher)
    let connectFour = ConnectFourStore(dispatcher: dispatcher)
    return Features(
        annotationFilter: annotationFilter,
        issues: issues,
        visibleIssues: visibleIssues,
        ticTacToe: ticTacToe,
        connectFour: connectFour,
        views: [
            ViewProvider(store: annotationFilter, render: AnnotationFilterViewProvider.tableViewModel(for:)),
            issueKeys(ViewProvider(store: issues, render: IssueListViewProvider.tableViewModel(for:))),
            issueKeys(ViewProvider(store: visibleIssues, render: IssueListViewProvider.tableViewModel(for:))),
            ViewProvider(store: ticTacToe, render: TicTacToeViewProvider.tableViewModel(for:)),
            ViewProvider(store: connectFour, render: ConnectFourViewProvider.tableViewModel(for:)),
        ]
    )
}

/// An issue list's keys in a live view: `c` closes the selected issue, `o` reopens it.
private func issueKeys(_ view: ViewProvider) -> ViewProvider {
    var view = view
    view.keys = ["c": IssueActions.CloseIssue.name, "o": IssueActions.ReopenIssue.name]
    return view
}
