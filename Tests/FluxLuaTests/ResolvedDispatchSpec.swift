import Flux
import Foundation
import Testing
@testable import FluxLua

/// An action with no payload that counts how often it is decoded.
private struct Ping: Action {
    static let name = "ping.go"
    nonisolated(unsafe) static var decoded = 0

    init(from decoder: any Decoder) throws {
        Ping.decoded += 1
    }
}

private final class PingStore: Store<Int> {
    init(dispatcher: Dispatcher) {
        super.init(name: "ping", state: 0, dispatcher: dispatcher)
        on(Ping.self) { state, _ in state += 1 }
    }
}

/// `flux.dispatch(name)` with a name it has resolved before takes a shortcut (the name's id found in C,
/// the action made once): it must do and refuse exactly what the first call did, and notice every change
/// of what the name means.
@Suite("flux.dispatch of a name resolved before", .serialized)
struct ResolvedDispatchSpec {
    let world = Harness()

    @Test("a name dispatched again fails in the same words, and changes nothing")
    func sameErrors() throws {
        try world.run("flux.view('busy', {store = 'tally', render = function(s) flux.dispatch('tally.add') return {sections = {}} end})")
        let cases = [
            (#"flux.dispatch("tally.nope")"#, "chunk:1: unknown action 'tally.nope' (:actions lists them)"),
            (#"flux.dispatch("tally.boom")"#, "chunk:1: store 'tally' failed on 'tally.boom': boom"),
            (#"flux.render("busy")"#, "chunk:1: cannot dispatch 'tally.add' while a view is being rendered"),
        ]
        for (call, message) in cases {
            #expect(world.error(call) == message, "first: \(call)")
            #expect(world.error(call) == message, "again: \(call)")
        }
        #expect(world.tally.state == TallyState())
        try world.run(#"for _ = 1, 3 do flux.dispatch("tally.add") end"#)
        #expect(world.error(#"flux.dispatch("tally.add", 1)"#) == "chunk:1: bad argument #2 to 'dispatch' (payload table expected, got number)")
        #expect(world.error(#"flux.dispatch("tally.add", {}, 3)"#) == "chunk:1: bad argument #3 to 'dispatch' (no more than 2 arguments expected, got 3)")
        try world.run(#"flux.dispatch("tally.add", {by = 10}) flux.dispatch("tally.add", nil)"#)
        #expect(world.tally.state.count == 14)
    }

    @Test("a payload-less action is made once and reused, and made again when the registry changes")
    func madeOnce() throws {
        let dispatcher = Dispatcher()
        let store = PingStore(dispatcher: dispatcher)
        try dispatcher.registry.register(Ping.self)
        let host = FluxHost(dispatcher: dispatcher)
        Ping.decoded = 0
        try host.run(#"for _ = 1, 5 do flux.dispatch("ping.go") end"#)
        #expect(store.state == 5)
        #expect(Ping.decoded == 1)
        host.routesChanged() // what a plugin's run does when it registers or removes names
        try host.run(#"flux.dispatch("ping.go")"#)
        #expect(Ping.decoded == 2)
    }

    @Test("a name registered later is found; a name a reloaded plugin dropped is unknown again")
    func registryChanges() throws {
        #expect(world.error(#"flux.dispatch("notes.add")"#) == "chunk:1: unknown action 'notes.add' (:actions lists them)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString).lua")
        defer { try? FileManager.default.removeItem(at: file) }
        func write(_ step: Int, _ action: String) throws {
            try """
            flux.store{name = "notes", state = {n = 0}, on = {["\(action)"] = function(s) s.n = s.n + \(step) return s end}}
            """.write(to: file, atomically: true, encoding: .utf8)
        }
        try write(1, "notes.add")
        try world.host.loadPlugin(at: file.path)
        try world.run(#"flux.dispatch("notes.add") flux.dispatch("notes.add")"#)
        #expect(try world.host.vm.run("return flux.state('notes').n", as: Int.self) == 2)

        func count() throws -> Int { try world.host.vm.run("return flux.state('notes').n", as: Int.self) }
        try write(10, "notes.add") // the same name, another handler
        try world.host.reload(world.host.plugins[0])
        let reloaded = try count()
        try world.run(#"flux.dispatch("notes.add")"#)
        #expect(try count() == reloaded + 10)

        try write(1, "notes.other") // the name is gone
        try world.host.reload(world.host.plugins[0])
        let before = try count()
        #expect(world.error(#"flux.dispatch("notes.add")"#) == "chunk:1: unknown action 'notes.add' (:actions lists them)")
        #expect(try count() == before)
    }

    @Test("an id the resolver never gave is an unknown action, not a crash")
    func foreignID() throws {
        #expect(throws: ActionError.self) { try world.host.dispatch(resolved: 1_000) }
        #expect(throws: ActionError.self) { try world.host.dispatch(resolved: -1) }
        #expect(world.tally.state == TallyState())
    }

    @Test("the table of resolved names is out of scripts' reach")
    func namesOutOfReach() throws {
        try world.run(#"flux.dispatch("tally.add")"#)
        #expect(world.error(#"local _, names = debug.getupvalue(flux.dispatch, 2) names["tally.add"] = 99"#)
            == "chunk:1: bad argument #1 to 'getupvalue' (cannot read the upvalues of a C function)")
        #expect(try world.run("local x = 4 local function f() return x end return debug.getupvalue(f, 1)") == ["x", 4])
        try world.run(#"flux.dispatch("tally.add")"#)
        #expect(world.tally.state.count == 2)
    }

    @Test("kept past its host, flux.dispatch of a name resolved before fails with an error")
    func afterHostGone() throws {
        let vm = LuaVM()
        let dispatcher = Dispatcher()
        let tally = TallyStore(dispatcher: dispatcher)
        do {
            let host = FluxHost(dispatcher: dispatcher, vm: vm)
            try host.run(#"kept = flux.dispatch kept("tally.add")"#)
        }
        let error = try #require(throws: LuaError.self) { try vm.run(#"kept("tally.add")"#) }
        #expect(error.message.contains("the flux host is closed"), "\(error.message)")
        #expect(tally.state.count == 1)
    }
}
