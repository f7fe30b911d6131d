import Flux
import FluxLua
import Foundation

/// Workload 16: Lua stores defined at scale: 10,000 stores with an action each, 10,000 sharing one
/// action, and the reload of a plugin holding 1,000 stores. Defining a store costs O(what it names), so
/// each grows linearly (it was cubic: 1,600 stores took 57 s).
enum StoreDefinition {
    static let stores = 10_000
    static let pluginStores = 1_000

    /// The seconds defining `count` stores takes, each with an action of its own or all sharing one.
    static func seconds(count: Int, shared: Bool) throws -> Double {
        let bench = LuaBench()
        let action = shared ? #""tick""# : #""s" .. i .. ".up""#
        let loop = try bench.loop(#"""
        return function(n)
          for i = 1, n do
            flux.store{name = "s" .. i, state = {n = 0}, on = {[\#(action)] = function(s) s.n = s.n + 1 end}}
          end
          return #flux.stores()
        end
        """#, chunkName: "define")
        let (seconds, defined) = try bench.time(loop, count: count)
        guard defined == count + 1 else { throw BenchmarkFailure("stores: \(defined) stores after defining \(count)") }
        return seconds
    }

    /// The seconds reloading a plugin that defines `count` stores takes.
    static func reloadSeconds(count: Int) throws -> Double {
        let bench = LuaBench()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-stores-\(getpid()).lua")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
        for i = 1, \(count) do
          flux.store{name = "p" .. i, state = {n = 0}, on = {["p" .. i .. ".up"] = function(s) s.n = s.n + 1 end}}
        end
        """.write(to: file, atomically: true, encoding: .utf8)
        try bench.host.loadPlugin(at: file.path)
        return try Measure.seconds { try bench.host.reload(bench.host.plugins[0]) }
    }

    static func figures(_ options: Options) throws -> [Figure] {
        progress("stores: \(options.runs) runs")
        let workload = "16 stores defined"
        var own = Samples(), shared = Samples(), reload = Samples()
        for _ in 0 ..< options.runs {
            own.add(try seconds(count: stores, shared: false))
            shared.add(try seconds(count: stores, shared: true))
            reload.add(try reloadSeconds(count: pluginStores))
        }
        return [
            Figure(workload: workload, name: "10,000 Lua stores, an action each", samples: own, unit: "s", notes: "target < 1 s"),
            Figure(workload: workload, name: "10,000 Lua stores, one shared action", samples: shared, unit: "s", notes: "target < 1 s"),
            Figure(workload: workload, name: "reload of a plugin of 1,000 stores", samples: reload, unit: "s", notes: "target < 0.2 s"),
        ]
    }
}
