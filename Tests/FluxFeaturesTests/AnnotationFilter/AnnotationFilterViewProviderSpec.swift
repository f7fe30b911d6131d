import Flux
import FluxFeatures
import FluxTable
import Testing

/// The filter list as the user sees it, for states reached through the store.
@Suite("Annotation filter view provider")
struct AnnotationFilterViewProviderSpec {
    let dispatcher = Dispatcher()
    let store: AnnotationFilterStore

    init() {
        store = AnnotationFilterStore(dispatcher: dispatcher)
    }

    var model: TableViewModel { AnnotationFilterViewProvider.tableViewModel(for: store.state) }

    func toggle(_ kind: AnnotationFilterKind) throws {
        try dispatcher.dispatch(AnnotationFilterActions.ToggleFilter(kind))
    }

    @Test("the list → shows hide everything without a header, then Share Status, Issues, General and the groups")
    func sections() {
        #expect(model.sections.map(\.headerTitle) == [nil, "Share Status", "Issues", "General", "Filter groups"])
        #expect(model.sections.map(\.headerHeight) == [nil, 28, 28, 28, 28])
        #expect(model.sections[0].cells.map(\.title) == ["Hide everything"])
        #expect(model.sections[2].cells.map(\.title) == ["Assigned to me", "Open issues only", "Unassigned"])
        #expect(model.sections[4].cells.map(\.title) == ["Share Status", "Issues", "General", "Clear filters"])
        #expect(model.sections.prefix(4).map(\.cells.count).reduce(0, +) == AnnotationFilterKind.allCases.count)
    }

    /// The row with id `id`, wherever it is (titles repeat: "Issues" is a group and a type filter).
    func row(_ id: String) throws -> CellViewModel {
        try #require(model.sections.flatMap(\.cells).first { $0.id == id })
    }

    /// The text field `key` of an object payload.
    func text(_ payload: CellPayload?, _ key: String) -> String? {
        guard case .object(let fields)? = payload, case .string(let value)? = fields[key] else { return nil }
        return value
    }

    /// Chooses the row with id `id`, as Enter on it in `:open` does: its action with its payload.
    func choose(_ id: String) throws {
        let cell = try row(id)
        let name = try #require(cell.action)
        #expect(cell.enabled, "\(cell.title) is disabled")
        switch name {
        case AnnotationFilterActions.EnterFilterGroup.name:
            let group = try #require(text(cell.payload, "group"))
            try dispatcher.dispatch(AnnotationFilterActions.EnterFilterGroup(group: group))
        case AnnotationFilterActions.LeaveFilterGroup.name:
            try dispatcher.dispatch(AnnotationFilterActions.LeaveFilterGroup())
        case AnnotationFilterActions.ResetFiltersInGroup.name:
            let group = try #require(text(cell.payload, "group"))
            try dispatcher.dispatch(AnnotationFilterActions.ResetFiltersInGroup(group: group))
        case AnnotationFilterActions.ResetFilters.name:
            try dispatcher.dispatch(AnnotationFilterActions.ResetFilters())
        default:
            let filter = try #require(text(cell.payload, "filter"))
            try dispatcher.dispatch(AnnotationFilterActions.ToggleFilter(filter: filter))
        }
    }

    @Test("a group row → enters the group's details: the way back, its filters, its reset")
    func enterGroup() throws {
        try toggle(.issueStatus)
        #expect(try row("group.issues").accessory == .disclosure)

        try choose("group.issues")

        #expect(store.state.selectedFilterGroup == .issues)
        #expect(model.sections.map(\.headerTitle) == [nil, "Issues"])
        #expect(model.sections.flatMap(\.cells).map(\.title)
            == ["Back to all filters", "Assigned to me", "Open issues only", "Unassigned", "Reset Issues"])
    }

    @Test("in a group → Reset clears only that group, and the way back shows every group again")
    func resetAndLeaveGroup() throws {
        try toggle(.issueStatus)
        try choose("group.issues")

        try choose("resetFiltersInGroup")

        #expect(store.state.activeFilters(in: .issues).isEmpty)
        #expect(store.state.isEnabled(.issueType))
        #expect(try !row("resetFiltersInGroup").enabled)

        try choose("leaveFilterGroup")

        #expect(store.state.selectedFilterGroup == nil)
        #expect(model.sections.count == 5)
    }

    @Test("Clear filters → is enabled exactly while filtering, and turns every filter off")
    func clearRow() throws {
        #expect(try !row("resetFilters").enabled)
        try toggle(.photo)
        try toggle(.shared)

        try choose("resetFilters")

        #expect(!store.state.isFiltering)
        #expect(try !row("resetFilters").enabled)
    }

    @Test("toggling a filter → checks its row, and the issue type row the rule turned on")
    func checkmarks() throws {
        try toggle(.issueUnassigned)

        let checked = model.sections.flatMap(\.cells).filter { $0.accessory == .checkmark }.map(\.id)
        #expect(checked == ["issues.unassigned", "general.issueType"])
    }

    @Test("Clear → is enabled exactly while some filter is on")
    func clearButton() throws {
        #expect(!AnnotationFilterViewProvider.clearEnabled(for: store.state))

        try toggle(.text)
        #expect(AnnotationFilterViewProvider.clearEnabled(for: store.state))

        try dispatcher.dispatch(AnnotationFilterActions.ResetFilters())
        #expect(!AnnotationFilterViewProvider.clearEnabled(for: store.state))
    }

    @Test("a toggle → updates exactly the toggled row, as a partial table update")
    func partialUpdate() throws {
        try toggle(.text)
        let before = model

        try toggle(.shared)

        let changes = TableDiff(from: before, to: model)
        #expect(changes.changeCount == 1)
        #expect(changes.rowUpdates.map(\.cell.id) == ["shareStatus.shared"])
    }
}
