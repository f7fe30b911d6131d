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

    @Test("a host let go by a Swift subscriber while its flux.dispatch runs finishes the call; the next one fails with an error")
    func hostGoneDuringDispatch() throws {
        let vm = LuaVM()
        let dispatcher = Dispatcher()
        let store = TallyStore(dispatcher: dispatcher)
        var host: FluxHost? = FluxHost(dispatcher: dispatcher, vm: vm)
        weak let gone = host
        try host?.run("flux.subscribe('tally', function(state) seen = state.count end)")
        let subscription = store.subscribe { state in if state.count == 1 { host = nil } }
        defer { subscription.cancel() }
        try vm.run("flux.dispatch('tally.add')")
        #expect(gone == nil)
        #expect(store.state.count == 1)
        #expect(try vm.run("return seen") == [1])
        let error = try #require(throws: LuaError.self) { try vm.run("flux.dispatch('tally.add')") }
        #expect(error.message.contains("the flux host is closed"), "\(error.message)")
        #expect(store.state.count == 1)
    }

    @Test("a host and its VM let go by a Swift function a Lua store's handler calls, in a dispatch from Swift, finish the handler")
    func hostGoneDuringLuaHandler() throws {
        let dispatcher = Dispatcher()
        var host: FluxHost? = FluxHost(dispatcher: dispatcher) // holds the only reference to its VM
        weak let gone = host
        host?.report = { _ in }
        host?.addFunction(named: "let_go") { _ in
            host = nil
            return 0
        }
        try host?.run(#"""
        flux.store{name = "notes", state = {n = 0}, on = {["notes.add"] = function(s)
          flux.let_go()
          local t = {}
          for i = 1, 1000 do t[i] = {i} end -- allocates, and may collect, after the host was let go
          s.n = s.n + #t
          return s
        end}}
        """#)
        try? dispatcher.dispatch(dispatcher.registry.decode("notes.add", json: nil))
        #expect(gone == nil)
        #expect(dispatcher.stores.allSatisfy { $0.name != "notes" })
    }

    @Test("the states a host's views name, a full batch of them and one being filled, go with the host and its VM")
    func viewedStatesGoWithTheHost() throws {
        let census = Census()
        do {
            let dispatcher = Dispatcher()
            _ = CensusStore(dispatcher: dispatcher, census: census)
            let host = FluxHost(dispatcher: dispatcher)
            try host.run(#"""
            kept = {}
            flux.subscribe("census", function(state) kept[#kept + 1] = state end)
            for _ = 1, 100 do flux.dispatch("census.count") end
            """#)
            #expect(try host.run("return kept[1].count, kept[101].count") == [.integer(0), .integer(100)])
        }
        #expect(census.alive == 0)
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

    @Test("a Swift state's view kept from a host that is gone reads its own state while a new host on the VM publishes others")
    func viewsOfTwoHostsOnOneVM() throws {
        let vm = LuaVM()
        do {
            let dispatcher = Dispatcher()
            _ = TallyStore(dispatcher: dispatcher)
            let host = FluxHost(dispatcher: dispatcher, vm: vm)
            try host.run(#"""
            flux.dispatch("tally.add", {by = 7, label = "first"})
            flux.subscribe("tally", function(state) first = state end)
            """#)
        }
        let dispatcher = Dispatcher()
        _ = TallyStore(dispatcher: dispatcher)
        let host = FluxHost(dispatcher: dispatcher, vm: vm)
        try host.run(#"""
        flux.subscribe("tally", function(state) second = state end)
        for _ = 1, 200 do flux.dispatch("tally.add", {by = 2}) end
        collectgarbage()
        """#)
        #expect(try vm.run("return first.count, first.labels[1], second.count, tostring(first)")
                == [.integer(7), .string("first"), .integer(400), .string("flux.state(tally)")])
    }
}
