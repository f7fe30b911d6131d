import Flux

/// Everything the annotation filter list needs to render: the filters of each group, the group whose
/// details are shown, and whether any filter is active (which enables "Clear").
///
/// Filters are values, so changing one changes the state and observers hear it. Only the
/// ``AnnotationFilterStore`` changes a state, through its actions; ``isFiltering`` is kept in step
/// with the filters by the store after every action.
public struct AnnotationFilterState: Codable, Equatable, Sendable, FieldReadable {
    /// The lone switch that hides every annotation.
    public internal(set) var hideEverythingFilter: AnnotationFilter
    /// Filters by whether an annotation is shared.
    public internal(set) var shareStatusFilters: [AnnotationFilter]
    /// Filters by issue properties (assignee, status).
    public internal(set) var issueFilters: [AnnotationFilter]
    /// Filters by annotation type; includes the issue type filter.
    public internal(set) var generalFilters: [AnnotationFilter]
    /// The group whose details are shown, or nil for the overview.
    public internal(set) var selectedFilterGroup: AnnotationFilterGroup?
    /// Whether any filter in any group is active.
    public internal(set) var isFiltering: Bool

    /// Every field, read one at a time (a Lua subscriber's `state.isFiltering`) without encoding the rest.
    public static let fields: [StateField<Self>] = [
        StateField("hideEverythingFilter", \.hideEverythingFilter),
        StateField("shareStatusFilters", \.shareStatusFilters),
        StateField("issueFilters", \.issueFilters),
        StateField("generalFilters", \.generalFilters),
        StateField("selectedFilterGroup", \.selectedFilterGroup),
        StateField("isFiltering", \.isFiltering),
    ]

    /// A state with the filters in `enabled` active (none by default) and `selectedFilterGroup` shown.
    public init(enabled: Set<AnnotationFilterKind> = [], selectedFilterGroup: AnnotationFilterGroup? = nil) {
        func filters(_ group: AnnotationFilterGroup) -> [AnnotationFilter] {
            group.kinds.map { AnnotationFilter($0, enabled: enabled.contains($0)) }
        }
        hideEverythingFilter = AnnotationFilter(.hideEverything, enabled: enabled.contains(.hideEverything))
        shareStatusFilters = filters(.shareStatus)
        issueFilters = filters(.issues)
        generalFilters = filters(.general)
        self.selectedFilterGroup = selectedFilterGroup
        isFiltering = !enabled.isEmpty
    }

    /// The filters of `group`, in display order.
    public func filters(in group: AnnotationFilterGroup) -> [AnnotationFilter] {
        switch group {
        case .hideEverything: return [hideEverythingFilter]
        case .shareStatus: return shareStatusFilters
        case .issues: return issueFilters
        case .general: return generalFilters
        }
    }

    /// Every filter, group by group.
    public var allFilters: [AnnotationFilter] {
        AnnotationFilterGroup.allCases.flatMap { filters(in: $0) }
    }

    /// Whether the filter `kind` is active.
    public func isEnabled(_ kind: AnnotationFilterKind) -> Bool {
        filters(in: kind.group).contains { $0.id == kind && $0.enabled }
    }

    /// The active filters of `group`.
    public func activeFilters(in group: AnnotationFilterGroup) -> [AnnotationFilterKind] {
        filters(in: group).filter(\.enabled).map(\.id)
    }

    // MARK: Changes (made by the store)

    /// Turns the filter `kind` on or off.
    mutating func setEnabled(_ kind: AnnotationFilterKind, _ enabled: Bool) {
        func update(_ filters: inout [AnnotationFilter]) {
            for index in filters.indices where filters[index].id == kind {
                filters[index].enabled = enabled
            }
        }
        switch kind.group {
        case .hideEverything: hideEverythingFilter.enabled = enabled
        case .shareStatus: update(&shareStatusFilters)
        case .issues: update(&issueFilters)
        case .general: update(&generalFilters)
        }
    }

    /// Turns off every filter of `group`.
    mutating func reset(_ group: AnnotationFilterGroup) {
        for kind in group.kinds { setEnabled(kind, false) }
    }

    /// Brings ``isFiltering`` in step with the filters; the last step of every change, as the seed's
    /// `_applyFilter()`.
    mutating func applyFilter() {
        isFiltering = allFilters.contains(where: \.enabled)
    }
}
