import FluxTable

/// Maps an ``AnnotationFilterState`` to what the filter list shows: a pure function, like React's
/// `render`, so the list is always exactly the state.
///
/// The overview (no group selected) has the seed's four sections, in order: the hide-everything switch
/// (no header), then "Share Status", "Issues" and "General" (headers 28 points high). A row is a filter,
/// identified by its id, with a check mark when the filter is on; choosing it dispatches
/// `annotationFilter.toggleFilter` for it. A fifth section, "Filter groups", does what the seed's
/// popover does by navigation: one row per group that enters the group (`annotationFilter.enterFilterGroup`), and "Clear filters" (`annotationFilter.resetFilters`,
/// enabled exactly while ``clearEnabled(for:)``).
///
/// A selected group shows its details alone: "Back to all filters" (`annotationFilter.leaveFilterGroup`),
/// the group's filters, and "Reset <group>" (`annotationFilter.resetFiltersInGroup`, enabled while one of
/// them is on).
public enum AnnotationFilterViewProvider {
    /// The height of the group headers, as the filter popover lays them out.
    public static let headerHeight = 28.0

    /// The filter list for `state`: the overview, or the details of the selected group.
    public static func tableViewModel(for state: AnnotationFilterState) -> TableViewModel {
        if let group = state.selectedFilterGroup {
            return TableViewModel(sections: details(of: group, in: state))
        }
        return TableViewModel(sections: AnnotationFilterGroup.allCases.map { group in
            section(for: group, cells: cellViewModels(for: state.filters(in: group)))
        } + [groupsSection(for: state)])
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

    /// The section of `group` holding `cells`, under the group's header.
    static func section(for group: AnnotationFilterGroup, cells: [CellViewModel]) -> SectionModel {
        SectionModel(
            id: group.rawValue, headerTitle: group.title,
            headerHeight: group.title == nil ? nil : headerHeight, cells: cells)
    }

    /// The overview's last section: a row entering each titled group, then "Clear filters".
    static func groupsSection(for state: AnnotationFilterState) -> SectionModel {
        let groups = AnnotationFilterGroup.allCases.compactMap { group -> CellViewModel? in
            guard let title = group.title else { return nil }
            return CellViewModel(
                id: "group.\(group.rawValue)", title: title, accessory: .disclosure, action: AnnotationFilterActions.EnterFilterGroup.name,
                payload: ["group": .string(group.rawValue)])
        }
        let clear = CellViewModel(
            id: "resetFilters", title: "Clear filters", enabled: clearEnabled(for: state),
            action: AnnotationFilterActions.ResetFilters.name)
        return SectionModel(id: "groups", headerTitle: "Filter groups", headerHeight: headerHeight, cells: groups + [clear])
    }

    /// A selected group's details: the way back, its filters, and the reset of the group.
    static func details(of group: AnnotationFilterGroup, in state: AnnotationFilterState) -> [SectionModel] {
        let back = CellViewModel(
            id: "leaveFilterGroup", title: "Back to all filters", action: AnnotationFilterActions.LeaveFilterGroup.name)
        let title = group.title ?? "Hide everything"
        let reset = CellViewModel(
            id: "resetFiltersInGroup", title: "Reset \(title)", enabled: !state.activeFilters(in: group).isEmpty,
            action: AnnotationFilterActions.ResetFiltersInGroup.name, payload: ["group": .string(group.rawValue)])
        let filters = cellViewModels(for: state.filters(in: group)) + [reset]
        return [
            SectionModel(id: "back", headerTitle: nil, headerHeight: nil, cells: [back]),
            SectionModel(id: group.rawValue, headerTitle: title, headerHeight: headerHeight, cells: filters),
        ]
    }
}
