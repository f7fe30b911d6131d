import Flux

/// The annotation filter feature's single source of truth: which filters are on, which group is shown.
///
/// Its business rule, from the production feature: filtering by an issue property (assignee, status)
/// only makes sense while issues are shown, so toggling an issue-specific filter turns the issue type
/// filter on when no annotation type filter is active or the issue type filter is off — whichever
/// way the issue filter was toggled.
///
/// ```swift
/// let store = AnnotationFilterStore(dispatcher: dispatcher)
/// try dispatcher.dispatch(AnnotationFilterActions.ToggleFilter(.issueStatus))
/// store.state.isEnabled(.issueType)  // true
/// ```
public final class AnnotationFilterStore: Store<AnnotationFilterState> {
    /// The name the store registers under (and the shell and scripts use).
    public static let storeName = "annotationFilter"

    /// A store starting from `state` (every filter off by default), registered with `dispatcher`.
    public init(dispatcher: Dispatcher, state: AnnotationFilterState = AnnotationFilterState()) {
        super.init(name: Self.storeName, state: state, dispatcher: dispatcher)

        on(AnnotationFilterActions.ToggleFilter.self) { state, action in
            let kind = try AnnotationFilterKind(id: action.filter)
            state.setEnabled(kind, !state.isEnabled(kind))
            if kind.isIssueSpecific,
               state.activeFilters(in: .general).isEmpty || !state.isEnabled(.issueType) {
                state.setEnabled(.issueType, true)
            }
            state.applyFilter()
        }
        on(AnnotationFilterActions.EnterFilterGroup.self) { state, action in
            state.selectedFilterGroup = try AnnotationFilterGroup(id: action.group)
        }
        on(AnnotationFilterActions.LeaveFilterGroup.self) { state, _ in
            state.selectedFilterGroup = nil
        }
        on(AnnotationFilterActions.ResetFilters.self) { state, _ in
            for group in AnnotationFilterGroup.allCases { state.reset(group) }
            state.applyFilter()
        }
        on(AnnotationFilterActions.ResetFiltersInGroup.self) { state, action in
            state.reset(try AnnotationFilterGroup(id: action.group))
            state.applyFilter()
        }
    }
}
