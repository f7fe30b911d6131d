import Flux
import FluxFeatures
import Foundation
import Testing

/// The annotation filter store's specification, after the production feature's: actions go through
/// a dispatcher, the state is observed as a view observes it.
@Suite("Annotation filter store")
struct AnnotationFilterStoreSpec {
    typealias Actions = AnnotationFilterActions

    let dispatcher = Dispatcher()
    let store: AnnotationFilterStore
    let view: StateRecorder<AnnotationFilterState>

    init() {
        store = AnnotationFilterStore(dispatcher: dispatcher)
        view = StateRecorder(store)
    }

    func toggle(_ kinds: AnnotationFilterKind...) throws {
        for kind in kinds { try dispatcher.dispatch(Actions.ToggleFilter(kind)) }
    }

    @Test("a new store → has every filter off and is not filtering")
    func initialState() {
        #expect(view.last.allFilters.count == AnnotationFilterKind.allCases.count)
        #expect(view.last.allFilters.allSatisfy { !$0.enabled })
        #expect(!view.last.isFiltering)
        #expect(view.last.selectedFilterGroup == nil)
    }

    @Test("toggling a filter → toggles the selected filter and enables filtering mode")
    func togglingAFilter() throws {
        try toggle(.hideEverything)

        #expect(view.changes == 1)
        #expect(view.last.hideEverythingFilter.enabled)
        #expect(view.last.isFiltering)
        #expect(view.last.allFilters.filter(\.enabled).map(\.id) == [.hideEverything])
    }

    @Test("toggling a filter twice → turns it off again and stops filtering mode")
    func togglingTwice() throws {
        try toggle(.photo, .photo)

        #expect(!view.last.isEnabled(.photo))
        #expect(!view.last.isFiltering)
    }

    @Test("toggling a filter, then resetting filters → deactivates previously active filters and stops filter mode")
    func resettingFilters() throws {
        try toggle(.hideEverything, .shared, .photo, .issueStatus)
        #expect(view.last.isFiltering)

        try dispatcher.dispatch(Actions.ResetFilters())

        #expect(view.last.allFilters.allSatisfy { !$0.enabled })
        #expect(!view.last.isFiltering)
    }

    @Test("resetting the filters of one group → turns off that group's filters only")
    func resettingOneGroup() throws {
        try toggle(.shared, .photo, .text)

        try dispatcher.dispatch(Actions.ResetFiltersInGroup(.general))

        #expect(view.last.activeFilters(in: .general).isEmpty)
        #expect(view.last.activeFilters(in: .shareStatus) == [.shared])
        #expect(view.last.isFiltering)
    }

    @Test("resetting the only group with active filters → stops filtering mode")
    func resettingLastActiveGroup() throws {
        try toggle(.shared, .privateToMe)

        try dispatcher.dispatch(Actions.ResetFiltersInGroup(group: "shareStatus"))

        #expect(!view.last.isFiltering)
    }

    @Test(
        "toggling an issue filter while no annotation type is filtered → also turns the issue type filter on",
        arguments: [AnnotationFilterKind.issueAssignedToMe, .issueStatus, .issueUnassigned]
    )
    func issueFilterWithNoTypeFilter(kind: AnnotationFilterKind) throws {
        try toggle(kind)

        #expect(view.last.isEnabled(kind))
        #expect(view.last.activeFilters(in: .general) == [.issueType])
    }

    @Test("toggling an issue filter while other types are filtered but not issues → adds the issue type filter")
    func issueFilterWithIssueTypeOff() throws {
        try toggle(.photo)

        try toggle(.issueStatus)

        #expect(view.last.activeFilters(in: .general) == [.issueType, .photo])
    }

    @Test("toggling an issue filter while the issue type filter is on → leaves it on")
    func issueFilterWithIssueTypeOn() throws {
        try toggle(.issueType, .issueUnassigned)

        #expect(view.last.isEnabled(.issueType))
        #expect(view.last.isEnabled(.issueUnassigned))
    }

    @Test("turning an issue filter off while the issue type filter is off → turns the issue type filter on")
    func issueFilterOffAppliesRule() throws {
        try toggle(.issueStatus, .issueType)
        #expect(!view.last.isEnabled(.issueType))

        try toggle(.issueStatus)

        #expect(!view.last.isEnabled(.issueStatus))
        #expect(view.last.activeFilters(in: .general) == [.issueType])
    }

    @Test("toggling a filter that is not about issues → leaves the issue type filter alone")
    func otherFiltersLeaveIssueTypeAlone() throws {
        try toggle(.shared, .hideEverything, .text)

        #expect(!view.last.isEnabled(.issueType))
    }

    @Test("undoing an issue filter toggle → reverts the issue type filter with it, in one step")
    func undoIssueFilterToggle() throws {
        try toggle(.issueStatus)

        try dispatcher.undo()

        #expect(view.last == AnnotationFilterState())
        #expect(!dispatcher.history.canUndo)
    }

    @Test("entering a filter group → shows its details; leaving it → back to the overview")
    func enteringAndLeavingAGroup() throws {
        try dispatcher.dispatch(Actions.EnterFilterGroup(group: "issues"))
        #expect(view.last.selectedFilterGroup == .issues)

        try dispatcher.dispatch(Actions.EnterFilterGroup(.general))
        #expect(view.last.selectedFilterGroup == .general)

        try dispatcher.dispatch(Actions.LeaveFilterGroup())
        #expect(view.last.selectedFilterGroup == nil)
        #expect(view.changes == 3)
    }

    @Test("entering a group → changes no filter")
    func enteringKeepsFilters() throws {
        try toggle(.text)

        try dispatcher.dispatch(Actions.EnterFilterGroup(.shareStatus))

        #expect(view.last.activeFilters(in: .general) == [.text])
        #expect(view.last.isFiltering)
    }

    @Test("leaving while no group is shown → changes nothing and leaves no undo step")
    func leavingWithoutGroup() throws {
        try toggle(.photo)

        try dispatcher.dispatch(Actions.LeaveFilterGroup())

        #expect(view.changes == 1)
        #expect(dispatcher.history.undoLabels == [Actions.ToggleFilter.name])
    }

    @Test("toggling an unknown filter → changes nothing and names the bad id and the valid ones")
    func unknownFilter() throws {
        try toggle(.shared)
        let before = store.state

        let refused = refusal { try dispatcher.dispatch(Actions.ToggleFilter(filter: "issues.bogus")) }

        #expect(refused?.error as? AnnotationFilterError == .unknownFilter("issues.bogus"))
        #expect(refused?.message.contains("unknown filter 'issues.bogus'") == true)
        #expect(refused?.message.contains("issues.status") == true)
        #expect(refused?.message.contains("general.issueType") == true)
        #expect(store.state == before)
        #expect(view.changes == 1)
        #expect(dispatcher.history.undoLabels.count == 1)
    }

    @Test(
        "an unknown group → is refused with the valid groups, and changes nothing",
        arguments: [Actions.EnterFilterGroup.name, Actions.ResetFiltersInGroup.name]
    )
    func unknownGroup(actionName: String) throws {
        try toggle(.photo)
        let before = store.state
        let action = try dispatcher.registry.decode(actionName, json: #"{"group":"photos"}"#)

        let refused = refusal { try dispatcher.dispatch(action) }

        #expect(refused?.error as? AnnotationFilterError == .unknownGroup("photos"))
        #expect(refused?.message.contains("valid groups: hideEverything, shareStatus, issues, general") == true)
        #expect(store.state == before)
    }

    @Test("actions built from script payloads by name → work like typed ones")
    func actionsByName() throws {
        let toggleStatus = try dispatcher.registry.decode("annotationFilter.toggleFilter", json: #"{"filter":"issues.status"}"#)
        let enterIssues = try dispatcher.registry.decode("annotationFilter.enterFilterGroup", json: #"{"group":"issues"}"#)
        let resetIssues = try dispatcher.registry.decode("annotationFilter.resetFiltersInGroup", json: #"{"group":"issues"}"#)

        try dispatcher.dispatch(toggleStatus)
        try dispatcher.dispatch(enterIssues)
        #expect(view.last.isEnabled(.issueStatus))
        #expect(view.last.selectedFilterGroup == .issues)

        try dispatcher.dispatch(resetIssues)
        #expect(view.last.activeFilters(in: .issues).isEmpty)
        #expect(view.last.isEnabled(.issueType))
    }

    @Test("the state → encodes filters by their stable ids and decodes to the same state")
    func codable() throws {
        try toggle(.issueAssignedToMe)
        try dispatcher.dispatch(Actions.EnterFilterGroup(.issues))

        let json = try JSONEncoder().encode(store.state)
        let text = String(decoding: json, as: UTF8.self)

        #expect(text.contains(#""id":"issues.assignedToMe""#))
        #expect(text.contains(#""selectedFilterGroup":"issues""#))
        #expect(try JSONDecoder().decode(AnnotationFilterState.self, from: json) == store.state)
    }
}
