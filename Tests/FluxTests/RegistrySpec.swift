import Foundation
import Testing
@testable import Flux

@Suite("Action registry")
struct RegistrySpec {
    struct ToggleFilter: Action {
        static let name = "annotationFilter.toggleFilter"
        let filter: String
    }

    struct Move: Action {
        static let name = "board.move"
        let squares: [Int]
        let note: String?
    }

    let registry: ActionRegistry

    init() throws {
        var registry = ActionRegistry()
        try registry.register(ToggleFilter.self)
        try registry.register(Move.self)
        self.registry = registry
    }

    @Test("a payload decodes into the typed action")
    func decodes() throws {
        let action = try registry.decode("board.move", json: #"{"squares":[1,2]}"#)
        let move = try #require(action as? Move)
        #expect(move.squares == [1, 2])
        #expect(move.note == nil)
        #expect(registry.names == ["annotationFilter.toggleFilter", "board.move"])
    }

    @Test("a missing field → an error naming the action and the field")
    func missingField() {
        #expect(throws: ActionError.invalidPayload(action: "annotationFilter.toggleFilter",
                                                   message: "field 'filter': expected a value, got nil")) {
            try registry.decode("annotationFilter.toggleFilter", json: "{}")
        }
        #expect(throws: ActionError.invalidPayload(action: "annotationFilter.toggleFilter",
                                                   message: "field 'filter': expected a string, got nil")) {
            try registry.decode("annotationFilter.toggleFilter", json: #"{"filter":null}"#)
        }
    }

    @Test("a wrong type deep in a payload → the path, one-based like Lua")
    func wrongTypeDeep() {
        #expect(throws: ActionError.invalidPayload(action: "board.move", message: "field 'squares[2]': expected an integer")) {
            try registry.decode("board.move", json: #"{"squares":[1,"two"]}"#)
        }
    }

    @Test("an unknown name → unknown action")
    func unknown() {
        #expect(throws: ActionError.unknownAction("nope")) { try registry.decode("nope", json: nil) }
        #expect("\(ActionError.unknownAction("nope"))" == "unknown action 'nope' (:actions lists them)")
    }

    /// Another type that says it is `board.move`.
    struct OtherMove: Action {
        static let name = "board.move"
        let to: Int
    }

    @Test("a second type under a taken name → an error naming both types; the first keeps the name")
    func conflictingTypes() throws {
        var registry = self.registry
        #expect(throws: ActionError.conflictingTypes(action: "board.move",
                                                     registered: String(reflecting: Move.self),
                                                     new: String(reflecting: OtherMove.self))) {
            try registry.register(OtherMove.self)
        }
        let error = ActionError.conflictingTypes(action: "board.move", registered: "A.Move", new: "B.Move")
        #expect("\(error)" == "action 'board.move' is already declared by A.Move; B.Move cannot take the same name")
        #expect(try registry.decode("board.move", json: #"{"squares":[3]}"#) is Move)
        // The same type again is no conflict.
        try registry.register(Move.self)
        #expect(registry.names == ["annotationFilter.toggleFilter", "board.move"])
    }

    @Test("two stores handling two types of one name: dispatching it fails and changes nothing, and the conflict is noted at once")
    func conflictingStores() throws {
        let dispatcher = Dispatcher()
        var notes: [String] = []
        dispatcher.onNote = { notes.append($0) }
        let first = MoveStore(name: "first", dispatcher: dispatcher)
        first.on(Move.self) { state, move in state += move.squares }
        let second = MoveStore(name: "second", dispatcher: dispatcher)
        second.on(OtherMove.self) { state, move in state.append(move.to) }
        #expect(notes.count == 1)
        #expect(notes.first?.contains("store 'second': action 'board.move' is already declared by \(String(reflecting: Move.self)); \(String(reflecting: OtherMove.self))") == true)

        #expect(throws: DispatcherError.self) { try dispatcher.dispatch(Move(squares: [1], note: nil)) }
        #expect(throws: DispatcherError.self) { try dispatcher.dispatch(OtherMove(to: 2)) }
        let byName = try dispatcher.registry.decode("board.move", json: #"{"squares":[5]}"#)
        do {
            try dispatcher.dispatch(byName)
            Issue.record("dispatching a name two types declare succeeded")
        } catch let DispatcherError.storeFailed(store, action, underlying) {
            #expect(store == "second")
            #expect(action == "board.move")
            #expect(underlying as? ActionError == .conflictingTypes(action: "board.move",
                                                                   registered: String(reflecting: Move.self),
                                                                   new: String(reflecting: OtherMove.self)))
        }
        #expect(first.state == [])
        #expect(second.state == [])
    }

    final class MoveStore: Store<[Int]> {
        init(name: String, dispatcher: Dispatcher) {
            super.init(name: name, state: [], dispatcher: dispatcher)
        }
    }
}
