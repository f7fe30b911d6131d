import Flux

/// The issue list shown to the user, derived from the ``IssueStore`` (what exists) and the
/// ``AnnotationFilterStore`` (what the user wants to see).
///
/// A derived store (``Store/init(name:derivedFrom:dispatcher:compute:)``), not a subscription from one
/// store to another: it recomputes in the dispatch that changed one of its sources, after both have
/// handled the action — one notification, one undo step, rolled back with them when any store refuses
/// the action — and in no other dispatch, so an action for another feature costs it nothing. A
/// subscription would instead update it in a second, separate dispatch that undo and rollback know
/// nothing about; a single store holding both would couple two features that views use apart.
public final class VisibleIssuesStore: Store<VisibleIssuesState> {
    /// The name the store registers under.
    public static let storeName = "visibleIssues"

    /// A store deriving the shown issues from `issues` through `filters`.
    public init(dispatcher: Dispatcher, issues: IssueStore, filters: AnnotationFilterStore) {
        super.init(name: Self.storeName, derivedFrom: [issues, filters], dispatcher: dispatcher) {
            VisibleIssuesState(issues: issues.state, filters: filters.state)
        }
    }
}
