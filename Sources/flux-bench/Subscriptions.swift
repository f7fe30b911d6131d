import Flux
import FluxLua

/// Workload 8: 100,000 subscriptions made from Lua and cancelled, oldest first and newest first, on a
/// Swift store and on a Lua store: cancelling must cost the same whatever the order.
enum Subscriptions {
    static let count = 100_000

    /// The seconds `count` subscriptions to `store` take to make and cancel in the order `order` names.
    static func seconds(store: String, oldestFirst: Bool) throws -> Double {
        let bench = LuaBench()
        try bench.host.run(#"flux.store{name = "luasubs", state = {count = 0}, on = {}}"#)
        let loop = try bench.loop(#"""
        return function(n)
          local subs = {}
          for i = 1, n do subs[i] = flux.subscribe("\#(store)", function() end) end
          \#(oldestFirst ? "for i = 1, n do subs[i]:cancel() end" : "for i = n, 1, -1 do subs[i]:cancel() end")
          return #flux.subscriptions()
        end
        """#, chunkName: "subscriptions")
        let (seconds, left) = try bench.time(loop, count: count)
        guard left == 0 else { throw BenchmarkFailure("subscriptions: \(left) left after cancelling") }
        return seconds
    }

    static func figures(_ options: Options) throws -> [Figure] {
        progress("subscriptions: \(options.runs) runs")
        let workload = "10 subscribe + cancel"
        var figures: [Figure] = []
        for (store, kind) in [("bench", "Swift store"), ("luasubs", "Lua store")] {
            for oldestFirst in [true, false] {
                var samples = Samples()
                for _ in 0 ..< options.runs { samples.add(try seconds(store: store, oldestFirst: oldestFirst)) }
                figures.append(Figure(workload: workload, name: "100,000, \(kind), \(oldestFirst ? "oldest" : "newest") first",
                                      samples: samples, unit: "s", notes: "target < 1 s"))
            }
        }
        return figures
    }
}
