/// Every filter the annotation filter offers, identified by a stable id (`"issues.status"`) that
/// actions, scripts and saved states use.
///
/// The id is `group.name`, except for the lone ``hideEverything`` filter.
public enum AnnotationFilterKind: String, CaseIterable, Codable, Sendable {
    /// Hides every annotation on the blueprint.
    case hideEverything = "hideEverything"

    /// Shows annotations shared with the team.
    case shared = "shareStatus.shared"
    /// Shows annotations only their author sees.
    case privateToMe = "shareStatus.private"

    /// Shows issues assigned to the current user.
    case issueAssignedToMe = "issues.assignedToMe"
    /// Shows open issues only.
    case issueStatus = "issues.status"
    /// Shows issues nobody is assigned to.
    case issueUnassigned = "issues.unassigned"

    /// Shows issues (the annotation type).
    case issueType = "general.issueType"
    /// Shows photo annotations.
    case photo = "general.photo"
    /// Shows text annotations.
    case text = "general.text"
    /// Shows measurements.
    case measurement = "general.measurement"
    /// Shows links to other sheets and documents.
    case hyperlink = "general.hyperlink"

    /// The kind with id `id`.
    ///
    /// - Throws: ``AnnotationFilterError/unknownFilter(_:)``, which lists the valid ids.
    public init(id: String) throws(AnnotationFilterError) {
        guard let kind = Self(rawValue: id) else { throw .unknownFilter(id) }
        self = kind
    }

    /// The stable id, as actions carry it.
    public var id: String { rawValue }

    /// The group the filter is listed in.
    public var group: AnnotationFilterGroup {
        switch self {
        case .hideEverything: return .hideEverything
        case .shared, .privateToMe: return .shareStatus
        case .issueAssignedToMe, .issueStatus, .issueUnassigned: return .issues
        case .issueType, .photo, .text, .measurement, .hyperlink: return .general
        }
    }

    /// The label a user reads.
    public var title: String {
        switch self {
        case .hideEverything: return "Hide everything"
        case .shared: return "Shared with team"
        case .privateToMe: return "Private"
        case .issueAssignedToMe: return "Assigned to me"
        case .issueStatus: return "Open issues only"
        case .issueUnassigned: return "Unassigned"
        case .issueType: return "Issues"
        case .photo: return "Photos"
        case .text: return "Text"
        case .measurement: return "Measurements"
        case .hyperlink: return "Hyperlinks"
        }
    }

    /// Whether the filter looks at properties only issues have, which makes sense only while issues
    /// are shown (see ``AnnotationFilterStore``).
    public var isIssueSpecific: Bool { group == .issues }
}
