import Flux
import Testing
@testable import FluxLua

@Suite("FluxHost: dispatch by name and payload text, a store's state")
struct FluxHostDispatchSpec {
    let world = Harness()

    @Test("an action by name and payload text changes the store as flux.dispatch does, entering Lua once")
    func dispatch() throws {
        let vm = world.host.vm
        var before = vm.protectedCalls
        try world.host.dispatch(actionNamed: "tally.add", payloadSource: "{by = 10, label = 'ten'}")
        #expect(vm.protectedCalls - before == 1)
        before = vm.protectedCalls
        try world.host.dispatch(actionNamed: "tally.add", payloadSource: nil)
        try world.host.dispatch(actionNamed: "tally.add", payloadSource: "  ")
        #expect(vm.protectedCalls == before, "no payload, no Lua")
        try world.host.dispatch(actionNamed: "tally.add", payloadSource: "nil")
        #expect(world.tally.state == TallyState(count: 13, labels: ["ten"]))
    }

    @Test("what flux.dispatch refuses is refused in its words, and changes nothing")
    func refusals() {
        let cases: [(name: String, payload: String?)] = [
            ("nope", "{}"), ("", nil), ("tally.add", "42"), ("tally.add", "'by = 1'"), ("tally.add", "{by = 'x'}"),
            ("tally.add", "{bye = 1}"), ("tally.add", "{label = print}"), ("tally.boom", nil),
        ]
        for (name, payload) in cases {
            let script = world.error("flux.dispatch('\(name)'" + (payload.map { ", " + $0 } ?? "") + ")")
            var swift = "no error"
            do {
                try world.host.dispatch(actionNamed: name, payloadSource: payload)
            } catch {
                swift = String(describing: error)
            }
            #expect(script == "chunk:1: " + swift, "\(name) \(payload ?? "")")
        }
        #expect(world.tally.state == TallyState())
    }

    @Test("payload text that is no expression, or raises, is a Lua error: syntax, or the script's own")
    func badText() {
        #expect(throws: LuaError.self) { try world.host.dispatch(actionNamed: "tally.add", payloadSource: "{by =") }
        do {
            try world.host.dispatch(actionNamed: "tally.add", payloadSource: "{by =")
        } catch let error as LuaError {
            #expect(error.kind == .syntax)
        } catch {
            Issue.record("\(error)")
        }
        do {
            try world.host.dispatch(actionNamed: "tally.add", payloadSource: "error('in the payload')")
        } catch let error as LuaError {
            #expect(error.kind == .runtime)
            #expect(error.message.hasSuffix("in the payload"))
        } catch {
            Issue.record("\(error)")
        }
        #expect(world.tally.state == TallyState())
    }

    @Test("a store's state is a fresh table, a Swift store's encoded without entering Lua")
    func state() throws {
        try world.host.dispatch(actionNamed: "tally.add", payloadSource: "{label = 'one'}")
        try world.run("flux.store{name = 'notes', state = {items = {'a', 'b'}}, on = {}}")
        let vm = world.host.vm
        let before = vm.protectedCalls
        let tally = try world.host.state(ofStoreNamed: "tally")
        #expect(vm.protectedCalls == before)
        let notes = try world.host.state(ofStoreNamed: "notes")
        let lua = vm.stack
        lua.push(tally)
        lua.push(notes)
        defer { lua.pop(2) }
        #expect(try lua.decode(TallyState.self, at: -2) == TallyState(count: 1, labels: ["one"]))
        #expect(try lua.decode([String: [String]].self, at: -1) == ["items": ["a", "b"]])
        // Fresh: a script may change it; the store's state stays.
        lua.push("changed")
        lua.rawSet("extra", in: -2)
        #expect(try world.run("return flux.state('notes').extra") == [.nil])
        #expect(throws: FluxHostError.unknownStore("nope", known: ["tally", "notes"])) {
            try world.host.state(ofStoreNamed: "nope")
        }
    }
}
