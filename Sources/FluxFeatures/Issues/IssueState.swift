import Flux

/// The issue store's state: a live query for the issues on the selected blueprint, with the records
/// it reads from.
///
/// The records of every blueprint live in the state rather than beside it, so that a failed action's
/// rollback and an undo restore records and query together.
public struct IssueState: Codable, Equatable, Sendable, FieldReadable {
    /// The user "assigned to me" refers to.
    public let currentUser: String
    /// The blueprints one can select.
    public let blueprints: [Blueprint]
    /// The id of the blueprint whose issues are shown, or nil before one is selected.
    public internal(set) var selectedBlueprint: String?
    /// The query's result: the issues on the selected blueprint, oldest first.
    public internal(set) var issues: [Issue]
    /// Every issue of every blueprint, oldest first.
    public internal(set) var allIssues: [Issue]
    /// The id the next created issue gets; ids only grow, so they are never reused.
    public internal(set) var nextIssueID: Int

    /// Every field, read one at a time (a Lua subscriber's `state.selectedBlueprint`) without encoding the
    /// issues.
    public static let fields: [StateField<Self>] = [
        StateField("currentUser", \.currentUser),
        StateField("blueprints", \.blueprints),
        StateField("selectedBlueprint", \.selectedBlueprint),
        StateField("issues", \.issues),
        StateField("allIssues", \.allIssues),
        StateField("nextIssueID", \.nextIssueID),
    ]

    /// A project with `blueprints`, none selected, holding `issues`, worked on by `currentUser`.
    public init(currentUser: String = "me", blueprints: [Blueprint] = Blueprint.samples, issues: [Issue] = []) {
        self.currentUser = currentUser
        self.blueprints = blueprints
        self.selectedBlueprint = nil
        self.allIssues = issues
        self.issues = []
        self.nextIssueID = (issues.map(\.id).max() ?? 0) + 1
    }

    /// The selected blueprint, or nil before one is selected.
    public var blueprint: Blueprint? {
        blueprints.first { $0.id == selectedBlueprint }
    }

    /// The issue `id` on the selected blueprint.
    public func issue(_ id: Int) -> Issue? {
        issues.first { $0.id == id }
    }

    /// Re-runs the query; the last step of every change, so ``issues`` never lags the records.
    mutating func runQuery() {
        issues = allIssues.filter { $0.blueprint == selectedBlueprint }
    }
}
