/// One filter as the list shows it: which filter, its label, and whether it is on.
///
/// A value type: the store replaces it to change it, so observers always hear the change (no
/// "phantom" state update as with shared filter objects).
public struct AnnotationFilter: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// Which filter this is; encoded as its stable id (`"issues.status"`).
    public let id: AnnotationFilterKind
    /// The label a user reads.
    public let title: String
    /// Whether the filter is active.
    public var enabled: Bool

    /// The filter `kind`, labelled with the kind's title.
    public init(_ kind: AnnotationFilterKind, enabled: Bool = false) {
        self.id = kind
        self.title = kind.title
        self.enabled = enabled
    }
}
