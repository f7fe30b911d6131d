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

    @Test("the list → shows hide everything without a header, then Share Status, Issues and General")
    func sections() {
        #expect(model.sections.map(\.headerTitle) == [nil, "Share Status", "Issues", "General"])
        #expect(model.sections.map(\.headerHeight) == [nil, 28, 28, 28])
        #expect(model.sections[0].cells.map(\.title) == ["Hide everything"])
        #expect(model.sections[2].cells.map(\.title) == ["Assigned to me", "Open issues only", "Unassigned"])
        #expect(model.cellCount == AnnotationFilterKind.allCases.count)
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
        let before = model

        try toggle(.shared)

        let changes = TableDiff(from: before, to: model)
        #expect(changes.changeCount == 1)
        #expect(changes.rowUpdates.map(\.cell.id) == ["shareStatus.shared"])
    }
}
