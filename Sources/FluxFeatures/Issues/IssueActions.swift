import Flux

/// Every change to issues a user can make, on the selected blueprint.
///
/// Payloads, as scripts write them:
/// `issues.selectBlueprint {blueprint = "A-101"}`, `issues.create {title = "Crack in wall", assignee = "ana"}`,
/// `issues.edit {id = 1, title = "…"}`, `issues.assign {id = 1, assignee = "ana"}` (no assignee: unassign),
/// `issues.close {id = 1}`, `issues.reopen {id = 1}`.
public enum IssueActions {
    /// Shows the issues of another blueprint.
    public struct SelectBlueprint: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "issues.selectBlueprint"
        /// The blueprint's id (`"A-101"`).
        public let blueprint: String

        /// Selects the blueprint with id `blueprint`.
        public init(blueprint: String) { self.blueprint = blueprint }
    }

    /// Records a new open issue on the selected blueprint; the store gives it the next id.
    public struct CreateIssue: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "issues.create"
        /// What is wrong; must not be blank.
        public let title: String
        /// Who should fix it; nil leaves it unassigned.
        public let assignee: String?

        /// Creates an issue titled `title`, assigned to `assignee`.
        public init(title: String, assignee: String? = nil) {
            self.title = title
            self.assignee = assignee
        }
    }

    /// Renames an issue.
    public struct EditIssue: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "issues.edit"
        /// The issue's id.
        public let id: Int
        /// The new title; must not be blank.
        public let title: String

        /// Retitles issue `id`.
        public init(id: Int, title: String) {
            self.id = id
            self.title = title
        }
    }

    /// Assigns an issue to someone, or to nobody.
    public struct AssignIssue: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "issues.assign"
        /// The issue's id.
        public let id: Int
        /// Who should fix it; nil unassigns.
        public let assignee: String?

        /// Assigns issue `id` to `assignee` (nil: unassigns it).
        public init(id: Int, assignee: String?) {
            self.id = id
            self.assignee = assignee
        }
    }

    /// Marks an open issue as done.
    public struct CloseIssue: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "issues.close"
        /// The issue's id.
        public let id: Int

        /// Closes issue `id`.
        public init(id: Int) { self.id = id }
    }

    /// Reopens a closed issue.
    public struct ReopenIssue: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "issues.reopen"
        /// The issue's id.
        public let id: Int

        /// Reopens issue `id`.
        public init(id: Int) { self.id = id }
    }
}
