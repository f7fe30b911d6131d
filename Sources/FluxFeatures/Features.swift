import Flux
import FluxTable

/// The features FluxShell ships, as stores registered on one dispatcher, with a view for each store.
///
/// ```swift
/// let features = FluxFeatures.install(on: dispatcher)
/// try dispatcher.dispatch(TicTacToeActions.placeToken(atIndex: 4))
/// let model = features.view(named: "ticTacToe")?.model()
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
    public let views: [FeatureView]

    /// The stores, in registration order.
    public var stores: [any StoreProtocol] {
        [annotationFilter, issues, visibleIssues, ticTacToe, connectFour]
    }

    /// The view called `name`.
    public func view(named name: String) -> FeatureView? {
        views.first { $0.name == name }
    }
}

/// A named view provider bound to its store: renders the store's state now.
///
/// Its fields match what a host's view registry takes (name, store name, model builder), so a host
/// registers each one as it is.
public struct FeatureView {
    /// The name `:render` and scripts know it by; the same as its store's.
    public let name: String
    /// The store whose state it renders; the model changes only when that store's state does.
    public let store: String
    /// The table for the store's state now.
    public let model: () -> TableViewModel

    /// A view called `name` rendering `store`'s state through `model`.
    public init(name: String, store: String, model: @escaping () -> TableViewModel) {
        self.name = name
        self.store = store
        self.model = model
    }

    /// A view named after `store`, rendering its state through `provider`.
    init<State>(_ store: Store<State>, _ provider: @escaping (State) -> TableViewModel) {
        self.init(name: store.name, store: store.name) { provider(store.state) }
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
            FeatureView(annotationFilter, AnnotationFilterViewProvider.tableViewModel(for:)),
            FeatureView(issues, IssueListViewProvider.tableViewModel(for:)),
            FeatureView(visibleIssues, IssueListViewProvider.tableViewModel(for:)),
            FeatureView(ticTacToe, TicTacToeViewProvider.tableViewModel(for:)),
            FeatureView(connectFour, ConnectFourViewProvider.tableViewModel(for:)),
        ]
    )
}
