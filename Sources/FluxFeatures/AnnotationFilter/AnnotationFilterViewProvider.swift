import FluxTable

/// Maps an ``AnnotationFilterState`` to what the filter list shows: a pure function, like React's
/// `render`, so the list is always exactly the state.
///
/// The table has four sections, in order: the hide-everything switch (no header), then "Share Status",
/// "Issues" and "General" (headers 28 points high). A row is a filter, identified by its id, with a
/// check mark when the filter is on; choosing it dispatches `annotationFilter.toggleFilter` for it. The "Clear" action sits outside the table (a toolbar button in
/// the seed), so it is exposed separately: ``clearEnabled(for:)``.
public enum AnnotationFilterViewProvider {
    /// The height of the group headers, as the filter popover lays them out.
    public static let headerHeight = 28.0

    /// The filter list for `state`.
    public static func tableViewModel(for state: AnnotationFilterState) -> TableViewModel {
        TableViewModel(sections: AnnotationFilterGroup.allCases.map { group in
            SectionModel(
                id: group.rawValue,
                headerTitle: group.title,
                headerHeight: group.title == nil ? nil : headerHeight,
                cells: cellViewModels(for: state.filters(in: group))
            )
        })
    }

    /// Whether the "Clear" action, which resets every filter, can be used: exactly while filtering.
    public static func clearEnabled(for state: AnnotationFilterState) -> Bool {
        state.isFiltering
    }

    /// One row per filter, checked when the filter is on, toggling it when chosen.
    static func cellViewModels(for filters: [AnnotationFilter]) -> [CellViewModel] {
        filters.map { filter in
            CellViewModel(
                id: filter.id.rawValue, title: filter.title, accessory: filter.enabled ? .checkmark : .none,
                action: AnnotationFilterActions.ToggleFilter.name, payload: ["filter": .string(filter.id.rawValue)])
        }
    }
}
