import Flux
import Foundation

/// A shared-state store: the issues on the selected blueprint, for every view that shows or changes
/// issues. It behaves like a live database query — select a blueprint and ``IssueState/issues`` holds
/// its issues; create, edit, assign, close or reopen one and the result follows.
///
/// ```swift
/// let issues = IssueStore(dispatcher: dispatcher)
/// try dispatcher.dispatch(IssueActions.SelectBlueprint(blueprint: "A-101"))
/// try dispatcher.dispatch(IssueActions.CreateIssue(title: "Crack in east wall"))
/// issues.state.issues.map(\.id)  // [1]
/// ```
///
/// Every refusal is an ``IssueError``: unknown blueprint or issue, blank title, no blueprint selected,
/// closing a closed issue or reopening an open one.
public final class IssueStore: Store<IssueState> {
    /// The name the store registers under.
    public static let storeName = "issues"

    /// A store starting from `state` (the sample blueprints, no issues, by default).
    public init(dispatcher: Dispatcher, state: IssueState = IssueState()) {
        super.init(name: Self.storeName, state: state, dispatcher: dispatcher)

        on(IssueActions.SelectBlueprint.self) { state, action in
            guard state.blueprints.contains(where: { $0.id == action.blueprint }) else {
                throw IssueError.unknownBlueprint(action.blueprint, valid: state.blueprints.map(\.id))
            }
            state.selectedBlueprint = action.blueprint
            state.runQuery()
        }
        on(IssueActions.CreateIssue.self) { state, action in
            guard let blueprint = state.selectedBlueprint else { throw IssueError.noBlueprintSelected }
            let issue = Issue(
                id: state.nextIssueID,
                blueprint: blueprint,
                title: try Self.title(action.title),
                assignee: try Self.assignee(action.assignee)
            )
            state.allIssues.append(issue)
            state.nextIssueID += 1
            state.runQuery()
        }
        on(IssueActions.EditIssue.self) { state, action in
            let title = try Self.title(action.title)
            try Self.update(action.id, in: &state) { $0.title = title }
        }
        on(IssueActions.AssignIssue.self) { state, action in
            let assignee = try Self.assignee(action.assignee)
            try Self.update(action.id, in: &state) { $0.assignee = assignee }
        }
        on(IssueActions.CloseIssue.self) { state, action in
            try Self.update(action.id, in: &state) { issue in
                guard issue.status == .open else { throw IssueError.alreadyClosed(issue.id) }
                issue.status = .closed
            }
        }
        on(IssueActions.ReopenIssue.self) { state, action in
            try Self.update(action.id, in: &state) { issue in
                guard issue.status == .closed else { throw IssueError.alreadyOpen(issue.id) }
                issue.status = .open
            }
        }
    }

    /// Changes the issue `id` of the selected blueprint with `change`, then re-runs the query.
    private static func update(_ id: Int, in state: inout IssueState, _ change: (inout Issue) throws -> Void) throws {
        guard let blueprint = state.selectedBlueprint else { throw IssueError.noBlueprintSelected }
        // Only issues the user can see are addressable: an id from another blueprint is unknown here.
        guard let index = state.allIssues.firstIndex(where: { $0.id == id && $0.blueprint == blueprint }) else {
            throw IssueError.unknownIssue(id, blueprint: blueprint)
        }
        try change(&state.allIssues[index])
        state.runQuery()
    }

    /// `title` without surrounding blanks; refused when nothing is left.
    private static func title(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw IssueError.emptyTitle }
        return trimmed
    }

    /// `assignee` without surrounding blanks; nil stays nil (unassigned), blank is refused.
    private static func assignee(_ assignee: String?) throws -> String? {
        guard let assignee else { return nil }
        let trimmed = assignee.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw IssueError.emptyAssignee }
        return trimmed
    }
}
