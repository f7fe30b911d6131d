import Flux

/// The issue list a user sees: the selected blueprint's issues that pass the annotation filter.
///
/// Derived, never changed by an action of its own: ``VisibleIssuesStore`` recomputes it from the
/// issue and annotation filter stores.
public struct VisibleIssuesState: Codable, Equatable, Sendable, FieldReadable {
    /// The selected blueprint, or nil before one is selected.
    public let blueprint: Blueprint?
    /// The issues shown, oldest first.
    public let issues: [Issue]
    /// How many issues of the blueprint the filter hides.
    public let hiddenCount: Int
    /// Whether any annotation filter is active.
    public let isFiltering: Bool

    /// Every field, read one at a time (a Lua subscriber's `state.hiddenCount`) without encoding the issues.
    public static let fields: [StateField<Self>] = [
        StateField("blueprint", \.blueprint),
        StateField("issues", \.issues),
        StateField("hiddenCount", \.hiddenCount),
        StateField("isFiltering", \.isFiltering),
    ]

    /// The list `issues` shows through `filters`.
    public init(issues: IssueState, filters: AnnotationFilterState) {
        let shown = issues.issues.filter { filters.shows($0, currentUser: issues.currentUser) }
        self.blueprint = issues.blueprint
        self.issues = shown
        self.hiddenCount = issues.issues.count - shown.count
        self.isFiltering = filters.isFiltering
    }

    /// The issues shown with status `status`.
    public func issues(_ status: IssueStatus) -> [Issue] {
        issues.filter { $0.status == status }
    }
}
