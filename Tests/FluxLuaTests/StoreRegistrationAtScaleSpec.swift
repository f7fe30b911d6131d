import Flux
import Foundation
import Testing
@testable import FluxLua

/// Thousands of Lua stores defined, redefined, reloaded and unloaded: each action reaches exactly the
/// stores handling it now, and an action no store handles any more is unknown. (How long it takes is
/// the benchmark's: `scripts/bench stores`.)
@Suite("Lua stores at scale")
struct StoreRegistrationAtScaleSpec {
    let world = Harness()

    @Test("2,000 stores with an action each: each action changes its store; redefined without it, the action is unknown")
    func ownActions() throws {
        try world.run(#"""
        for i = 1, 2000 do
          flux.store{name = "s" .. i, state = {n = 0}, on = {["s" .. i .. ".up"] = function(s) s.n = s.n + 1 end}}
        end
        flux.dispatch("s1.up")
        flux.dispatch("s2000.up")
        for i = 1, 2000, 2 do
          flux.store{name = "s" .. i, state = {n = 0}, on = {["s" .. i .. ".down"] = function(s) s.n = s.n - 1 end}}
        end
        flux.dispatch("s2.up")
        flux.dispatch("s1.down")
        """#)
        #expect(try world.run("return flux.state('s1').n, flux.state('s2').n, flux.state('s2000').n, #flux.stores()")
            == [.integer(0), .integer(1), .integer(1), .integer(2001)]) // and the harness's `tally`
        #expect(world.error("flux.dispatch('s1.up')").contains("unknown action 's1.up'"))
        #expect(world.error("flux.dispatch('s1999.up')").contains("unknown action 's1999.up'"))
        #expect(try world.run("flux.dispatch('s1998.up') return flux.state('s1998').n") == [.integer(1)])
    }

    @Test("2,000 stores sharing one action: it reaches every one, also those defined after it was dispatched, and not one that dropped it")
    func sharedAction() throws {
        try world.run(#"""
        local function define(i, handles)
          flux.store{name = "c" .. i, state = {n = 0}, on = handles and {tick = function(s) s.n = s.n + 1 end} or {}}
        end
        for i = 1, 1000 do define(i, true) end
        flux.dispatch("tick")
        for i = 1001, 2000 do define(i, true) end
        define(500, false)
        flux.dispatch("tick")
        total = 0
        for i = 1, 2000 do total = total + flux.state("c" .. i).n end
        """#)
        #expect(try world.run("return total, flux.state('c1').n, flux.state('c500').n, flux.state('c2000').n")
            == [.integer(1000 + 1999), .integer(2), .integer(1), .integer(1)])
        #expect(world.dispatcher.history.undoLabels.suffix(2) == ["tick", "tick"])
        try world.run("flux.undo()")
        #expect(try world.run("return flux.state('c1').n, flux.state('c2000').n") == [.integer(1), .integer(0)])
    }

    @Test("a plugin holding 1,000 stores reloaded: kept stores keep their state, dropped ones and their actions go; unloaded, all go")
    func pluginReload() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("many-\(UUID().uuidString).lua")
        defer { try? FileManager.default.removeItem(at: file) }
        func write(stores: Int) throws {
            try """
            for i = 1, \(stores) do
              flux.store{name = "p" .. i, state = {n = 0}, on = {["p" .. i .. ".up"] = function(s) s.n = s.n + 1 end, all = function(s) s.n = s.n + 10 end}}
            end
            """.write(to: file, atomically: true, encoding: .utf8)
        }
        try write(stores: 1000)
        try world.host.loadPlugin(at: file.path)
        try world.run("flux.dispatch('p1.up') flux.dispatch('p1000.up') flux.dispatch('all')")
        try write(stores: 500)
        try world.host.reload(world.host.plugins[0])
        #expect(try world.run("return #flux.stores(), flux.state('p1').n") == [.integer(501), .integer(11)])
        #expect(world.error("flux.dispatch('p1000.up')").contains("unknown action 'p1000.up'"))
        #expect(world.error("flux.state('p501')").contains("p501"))
        try world.run("flux.dispatch('all')")
        #expect(try world.run("return flux.state('p1').n, flux.state('p500').n") == [.integer(21), .integer(20)])
        try world.host.unloadPlugin(named: world.host.plugins[0].name)
        #expect(try world.run("return #flux.stores()") == [.integer(1)])
        #expect(world.error("flux.dispatch('all')").contains("unknown action 'all'"))
    }

    @Test("a failed reload of a plugin holding 1,000 stores puts back every store, handler and action")
    func failedReload() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("many-\(UUID().uuidString).lua")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
        for i = 1, 1000 do
          flux.store{name = "q" .. i, state = {n = 0}, on = {["q" .. i .. ".up"] = function(s) s.n = s.n + 1 end}}
        end
        """.write(to: file, atomically: true, encoding: .utf8)
        try world.host.loadPlugin(at: file.path)
        try """
        for i = 1, 1000 do
          flux.store{name = "q" .. i, state = {n = 0}, on = {["q" .. i .. ".down"] = function(s) s.n = s.n - 1 end}}
        end
        error("broken")
        """.write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try world.host.reload(world.host.plugins[0]) }
        try world.run("flux.dispatch('q1.up') flux.dispatch('q1000.up')")
        #expect(try world.run("return flux.state('q1').n, flux.state('q1000').n, #flux.stores()") == [.integer(1), .integer(1), .integer(1001)])
        #expect(world.error("flux.dispatch('q1.down')").contains("unknown action 'q1.down'"))
    }
}
