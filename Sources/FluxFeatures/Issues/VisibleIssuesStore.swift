import Flux

/// The issue list shown to the user, derived from the ``IssueStore`` (what exists) and the
/// ``AnnotationFilterStore`` (what the user wants to see).
///
/// The inter-store dependency is a Flux `waitFor`, not a subscription from one store to another:
/// on every action this store first lets both upstream stores handle it
/// (`context.waitFor([issues.token, filters.token])`), then recomputes from their new states. So
/// the derived list changes in the same dispatch as its sources — one notification, one undo step,
/// rolled back with them when any store refuses the action — whatever order the stores registered
/// in. A subscription would instead update it in a second, separate dispatch that undo and rollback
/// know nothing about; a single store holding both would couple two features that views use apart.
public final class VisibleIssuesStore: Store<VisibleIssuesState> {
    /// The name the store registers under.
    public static let storeName = "visibleIssues"

    /// A store deriving the shown issues from `issues` through `filters`.
    public init(dispatcher: Dispatcher, issues: IssueStore, filters: AnnotationFilterStore) {
        super.init(
            name: Self.storeName,
            state: VisibleIssuesState(issues: issues.state, filters: filters.state),
            dispatcher: dispatcher
        )
        // The dispatch's context, not `dispatcher`: the dispatcher owns this store, so a handler that
        // captured it would keep the dispatcher and every store on it alive.
        onEveryAction { state, _, context in
            try context.waitFor([issues.token, filters.token])
            state = VisibleIssuesState(issues: issues.state, filters: filters.state)
        }
    }
}
