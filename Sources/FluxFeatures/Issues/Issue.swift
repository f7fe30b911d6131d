/// Whether an issue still needs work.
public enum IssueStatus: String, CaseIterable, Codable, Sendable {
    /// Someone has to act on it.
    case open
    /// Done; kept for the record and reopened if the problem comes back.
    case closed

    /// The word a user reads.
    public var title: String {
        switch self {
        case .open: return "Open"
        case .closed: return "Closed"
        }
    }
}

/// A problem recorded on a blueprint, for someone to fix.
public struct Issue: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// The number the store gave it, unique across every blueprint.
    public let id: Int
    /// The id of the blueprint it is placed on.
    public let blueprint: String
    /// What is wrong.
    public var title: String
    /// Whether it still needs work.
    public var status: IssueStatus
    /// Who should fix it; nil when nobody is assigned.
    public var assignee: String?

    /// An issue as the store records it.
    public init(id: Int, blueprint: String, title: String, status: IssueStatus = .open, assignee: String? = nil) {
        self.id = id
        self.blueprint = blueprint
        self.title = title
        self.status = status
        self.assignee = assignee
    }
}
