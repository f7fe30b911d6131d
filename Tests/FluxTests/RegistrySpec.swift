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

    var registry: ActionRegistry {
        var registry = ActionRegistry()
        registry.register(ToggleFilter.self)
        registry.register(Move.self)
        return registry
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
        #expect("\(ActionError.unknownAction("nope"))" == "unknown action 'nope'")
    }
}
