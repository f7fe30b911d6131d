import Flux
import Testing
@testable import FluxLua

/// Lua can reach the host after it is gone — its VM handed on, a finalizer at close: every such call is
/// a Lua error, never a crash.
@Suite("Host lifetime")
struct FluxHostLifetimeTests {
    @Test("the flux module's functions, kept by a script, fail with an error once their host is gone")
    func callsAfterHostGone() throws {
        let vm = LuaVM()
        let dispatcher = Dispatcher()
        _ = TallyStore(dispatcher: dispatcher)
        do {
            let host = FluxHost(dispatcher: dispatcher, vm: vm)
            host.report = { _ in }
            try host.run(#"""
            flux.store{name = "notes", state = {n = 0}, on = {["notes.add"] = function(s) s.n = s.n + 1 return s end}}
            kept = flux
            sub = flux.subscribe("tally", function(state) last = state end)
            """#)
        }
        for call in ["kept.dispatch('tally.add')", "kept.subscribe('tally', print)", "kept.undo()", "kept.stores()"] {
            let error = try #require(throws: LuaError.self) { try vm.run(call) }
            #expect(error.message.contains("the flux host is closed"), "\(call): \(error.message)")
        }
        // What the script kept still reads, or fails cleanly.
        #expect(try vm.run("return last.count") == [0])
        #expect(try vm.run("sub:cancel() return sub:active()") == [false])
        try dispatcher.dispatch(dispatcher.registry.decode(Tally.name, json: nil))
        #expect(dispatcher.stores.map(\.name) == ["tally"])
    }

    @Test("finalizers that call the flux module run at close without crashing")
    func finalizersAtClose() throws {
        let dispatcher = Dispatcher()
        _ = TallyStore(dispatcher: dispatcher)
        do {
            let host = FluxHost(dispatcher: dispatcher)
            try host.run(#"""
            collectgarbage("stop") -- every finalizer runs at close
            for i = 1, 10 do
              setmetatable({}, {__gc = function() flux.dispatch("tally.add") flux.subscribe("tally", print) end})
            end
            keep = setmetatable({}, {__gc = function() flux.dispatch("tally.add") end})
            """#)
        }
        #expect((dispatcher.store(named: "tally") as? TallyStore)?.state.count == 0)
    }
}
