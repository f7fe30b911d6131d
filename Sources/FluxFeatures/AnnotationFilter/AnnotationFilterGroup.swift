/// One group of the annotation filter list: a section of the table, and what "enter group" and
/// "reset group" act on.
///
/// The raw value is the id actions carry (`{group = "issues"}`).
public enum AnnotationFilterGroup: String, CaseIterable, Codable, Sendable {
    /// The single "hide everything" switch, shown above the other groups.
    case hideEverything
    /// Whether an annotation is shared with the team or private.
    case shareStatus
    /// Properties only issues have: assignee and status.
    case issues
    /// Annotation types (issues, photos, text, …).
    case general

    /// The section header, or nil for the group shown without one.
    public var title: String? {
        switch self {
        case .hideEverything: return nil
        case .shareStatus: return "Share Status"
        case .issues: return "Issues"
        case .general: return "General"
        }
    }

    /// The group with id `id`.
    ///
    /// - Throws: ``AnnotationFilterError/unknownGroup(_:)``, which lists the valid ids.
    public init(id: String) throws(AnnotationFilterError) {
        guard let group = Self(rawValue: id) else { throw .unknownGroup(id) }
        self = group
    }

    /// The kinds of filter in this group, in display order.
    public var kinds: [AnnotationFilterKind] {
        AnnotationFilterKind.allCases.filter { $0.group == self }
    }
}
