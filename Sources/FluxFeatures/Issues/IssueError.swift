/// Why the issue store refused an action. Every message names the value at fault, since it was most
/// likely typed by hand in the shell or a script.
public enum IssueError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Issues are created and found on the selected blueprint, and none is selected.
    case noBlueprintSelected
    /// No blueprint has this id; `valid` lists the ids there are.
    case unknownBlueprint(String, valid: [String])
    /// No issue with this id is on the selected blueprint.
    case unknownIssue(Int, blueprint: String)
    /// An issue needs a title that is not blank.
    case emptyTitle
    /// An assignee must be a name; to unassign, leave the assignee out.
    case emptyAssignee
    /// The issue is closed already.
    case alreadyClosed(Int)
    /// The issue is open already.
    case alreadyOpen(Int)

    /// The message the shell prints.
    public var description: String {
        switch self {
        case .noBlueprintSelected:
            return "no blueprint selected; select one with issues.selectBlueprint {blueprint = …}"
        case let .unknownBlueprint(id, valid):
            return "unknown blueprint '\(id)'; valid blueprints: \(valid.joined(separator: ", "))"
        case let .unknownIssue(id, blueprint):
            return "no issue #\(id) on blueprint \(blueprint)"
        case .emptyTitle:
            return "an issue needs a title"
        case .emptyAssignee:
            return "an assignee cannot be blank; leave it out to unassign"
        case let .alreadyClosed(id):
            return "issue #\(id) is already closed"
        case let .alreadyOpen(id):
            return "issue #\(id) is already open"
        }
    }
}
