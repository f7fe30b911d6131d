import Flux
import Testing
@testable import FluxLua

/// A Lua store whose state changed shape since a session saved it keeps its data: converted by its own
/// `migrate`, or else field by field, never started empty.
@Suite("A Lua store's saved state of another shape")
struct LuaStoreMigrationSpec {
    /// The text and format a store defined by `definition` saves, after `actions` ran.
    private func saved(_ definition: String, _ actions: String = "") throws -> (text: String, format: String) {
        let old = Harness()
        try old.run(definition)
        try old.run(actions)
        let store = try #require(old.dispatcher.store(named: "counter") as? LuaStore)
        return (try store.encodeState(store.snapshot()), store.stateFormat)
    }

    /// `definition` defined afresh, given the saved state as a session restores it; its note.
    private func restored(_ saved: (text: String, format: String), into definition: String, in world: Harness) throws -> String? {
        try world.run(definition)
        let store = try #require(world.dispatcher.store(named: "counter") as? LuaStore)
        #expect(store.reads(format: saved.format))
        let (state, note) = try store.decodeState(saved.text, savedAs: saved.format)
        store.restore(state)
        store.publish() // as a session's restore does
        return note
    }

    static let v1 = #"flux.store{name = "counter", state = {count = 0, note = "x"}, on = {["counter.add"] = function(s, a) s.count = s.count + a.by end}}"#

    @Test("without migrate: a new field gets its initial value, a field whose type changed takes the new one, the others are kept")
    func fieldByField() throws {
        let old = try saved(Self.v1, #"flux.dispatch("counter.add", {by = 5})"#)
        let world = Harness()
        let note = try restored(old, into: #"flux.store{name = "counter", state = {count = 0, note = 1, label = "clicks"}, on = {}}"#, in: world)
        #expect(note == "changed shape: added label (initial value); dropped the saved note (a string, now a number); the other saved fields kept")
        #expect(try world.run(#"local s = flux.state("counter") return s.count, s.label, s.note"#) == [.integer(5), .string("clicks"), .integer(1)])
    }

    @Test("a field the new initial state no longer has is kept, not lost")
    func removedFieldKept() throws {
        let old = try saved(Self.v1, #"flux.dispatch("counter.add", {by = 2})"#)
        let world = Harness()
        let note = try restored(old, into: #"flux.store{name = "counter", state = {count = 0}, on = {}}"#, in: world)
        #expect(note == "changed shape: every saved field kept")
        #expect(try world.run(#"local s = flux.state("counter") return s.count, s.note"#) == [.integer(2), .string("x")])
    }

    @Test("with version and migrate: migrate gets the saved state and its version, and returns the new one")
    func migrate() throws {
        let old = try saved(#"flux.store{name = "counter", version = 1, state = {count = 0}, on = {["counter.add"] = function(s, a) s.count = s.count + a.by end}}"#,
                            #"flux.dispatch("counter.add", {by = 7})"#)
        #expect(old.format == "lua-pairs-1 {count: number} v1")
        let world = Harness()
        let note = try restored(old, into: #"""
            flux.store{name = "counter", version = 2, state = {total = 0},
              migrate = function(old, version) seen = version return {total = old.count * 10} end, on = {}}
            """#, in: world)
        #expect(note == "was converted by its migrate function from version 1 to 2")
        #expect(try world.run(#"return flux.state("counter").total, seen"#) == [.integer(70), .integer(1)])
    }

    @Test("a migrate that fails or returns no table is an error, and the store keeps its state")
    func failingMigrate() throws {
        let old = try saved(Self.v1)
        let world = Harness()
        try world.run(#"flux.store{name = "counter", version = 2, state = {total = 0}, migrate = function() return 42 end, on = {}}"#)
        let store = try #require(world.dispatcher.store(named: "counter") as? LuaStore)
        #expect(throws: (any Error).self) { try store.decodeState(old.text, savedAs: old.format) }
        #expect(try world.run(#"return flux.state("counter").total"#) == [.integer(0)])
    }

    @Test("the same shape and version is read as it was saved, with no note")
    func sameShape() throws {
        let old = try saved(Self.v1, #"flux.dispatch("counter.add", {by = 3})"#)
        let world = Harness()
        #expect(try restored(old, into: Self.v1, in: world) == nil)
        #expect(try world.run(#"return flux.state("counter").count"#) == [.integer(3)])
    }

    @Test("version and migrate are checked: an integer from 0, a function; misspelled fields are refused with the ones there are")
    func badFields() {
        let world = Harness()
        #expect(world.error(#"flux.store{name = "c", version = 1.5, state = {}}"#).contains("field 'version' must be an integer from 0"))
        #expect(world.error(#"flux.store{name = "c", version = -1, state = {}}"#).contains("field 'version' must be an integer from 0"))
        #expect(world.error(#"flux.store{name = "c", migrate = 1, state = {}}"#).contains("field 'migrate' must be a function"))
        #expect(world.error(#"flux.store{name = "c", stat = {}}"#)
            .contains("unknown field 'stat': did you mean 'state'? (fields: actions, migrate, name, on, state, version, wait_for)"))
        #expect(world.error(#"flux.store{name = "c", handlers = {}}"#).contains("unknown field 'handlers' (fields: "))
        #expect(world.error(#"flux.store{name = "c", [1] = true}"#).contains("unknown field a number key"))
        #expect(world.dispatcher.store(named: "c") == nil, "a refused definition defines nothing")
    }
}
