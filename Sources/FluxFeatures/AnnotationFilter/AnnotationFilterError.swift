/// Why the annotation filter store refused an action: the payload named a filter or group that does
/// not exist. The message lists the valid ids, since the id was most likely typed by hand.
public enum AnnotationFilterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No filter has this id.
    case unknownFilter(String)
    /// No group has this id.
    case unknownGroup(String)

    /// The message the shell prints.
    public var description: String {
        switch self {
        case let .unknownFilter(id):
            let valid = AnnotationFilterKind.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown filter '\(id)'; valid filters: \(valid)"
        case let .unknownGroup(id):
            let valid = AnnotationFilterGroup.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown filter group '\(id)'; valid groups: \(valid)"
        }
    }
}
