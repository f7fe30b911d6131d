import Flux
import FluxFeatures
import FluxTable
import Testing

/// What the shell gets from `FluxFeatures.install(on:)`.
@Suite("Installing the features")
struct FeaturesSpec {
    let dispatcher = Dispatcher()
    let features: Features

    init() {
        features = FluxFeatures.install(on: dispatcher)
    }

    @Test("install → registers the shipped stores under their names")
    func stores() {
        #expect(dispatcher.stores.map(\.name) == ["annotationFilter", "issues", "visibleIssues", "ticTacToe", "connectFour"])
        #expect(dispatcher.store(named: "visibleIssues") === features.visibleIssues)
    }

    @Test("install → names each view after the store it renders")
    func views() {
        #expect(features.views.map(\.name) == ["annotationFilter", "issues", "visibleIssues", "ticTacToe", "connectFour"])
        #expect(features.views.allSatisfy { $0.store == $0.name })
        #expect(features.view(named: "chess") == nil)
    }

    @Test("every action of every store → can be dispatched by name")
    func actionNames() {
        let expected = [
            "annotationFilter.enterFilterGroup", "annotationFilter.leaveFilterGroup", "annotationFilter.resetFilters",
            "annotationFilter.resetFiltersInGroup", "annotationFilter.toggleFilter",
            "connectFour.dropToken", "connectFour.reset",
            "issues.assign", "issues.close", "issues.create", "issues.edit", "issues.reopen", "issues.selectBlueprint",
            "ticTacToe.placeToken", "ticTacToe.reset",
        ]
        #expect(dispatcher.registry.names == expected)
    }

    @Test("a view → renders its store's state now")
    func viewsFollowState() throws {
        let board = try #require(features.view(named: "ticTacToe"))
        #expect(try board.model().sections[0].headerTitle == "X's turn")

        try dispatcher.dispatch(try dispatcher.registry.decode("ticTacToe.placeToken", json: #"{"index":4}"#))

        #expect(try board.model().sections[0].headerTitle == "O's turn")
        #expect(try board.model().sections[0].cells[1].title == ". X .")
    }

    @Test("a script's session → runs across the stores by name and undoes step by step")
    func scriptedSession() throws {
        let session: [(String, String)] = [
            ("issues.selectBlueprint", #"{"blueprint":"A-101"}"#),
            ("issues.create", #"{"title":"Crack in east wall","assignee":"me"}"#),
            ("issues.create", #"{"title":"Loose tile"}"#),
            ("annotationFilter.toggleFilter", #"{"filter":"issues.assignedToMe"}"#),
        ]
        for (name, payload) in session {
            try dispatcher.dispatch(try dispatcher.registry.decode(name, json: payload))
        }
        let list = try #require(features.view(named: "visibleIssues"))
        #expect(try list.model().sections[1].cells.map(\.title) == ["#1 Crack in east wall"])

        try dispatcher.undo()

        #expect(try list.model().sections[1].cells.map(\.title) == ["#1 Crack in east wall", "#2 Loose tile"])
    }

    @Test("an owner drops its dispatcher → the dispatcher and every shipped store are freed")
    func freedWithOwner() throws {
        weak var dispatcher: Dispatcher?
        weak var visibleIssues: VisibleIssuesStore?
        weak var ticTacToe: TicTacToeStore?
        do {
            let owned = Dispatcher()
            let features = FluxFeatures.install(on: owned)
            // A dispatch that runs the derived store's waitFor, and an undo step holding states.
            try owned.dispatch(try owned.registry.decode("issues.selectBlueprint", json: #"{"blueprint":"A-101"}"#))
            try owned.dispatch(TicTacToeActions.placeToken(atIndex: 4))
            #expect(features.visibleIssues.state.blueprint?.id == "A-101")
            dispatcher = owned
            visibleIssues = features.visibleIssues
            ticTacToe = features.ticTacToe
        }
        #expect(dispatcher == nil)
        #expect(visibleIssues == nil)
        #expect(ticTacToe == nil)
    }
}
