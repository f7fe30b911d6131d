import FluxLua

/// Workload 2: `flux.dispatch` from a Lua loop into the Swift bench store, with one Lua subscriber
/// reading `state.count` of each new state.
struct DispatchLua {
    private let bench: LuaBench
    private let loop: LuaRef

    init(bench: LuaBench) throws {
        self.bench = bench
        loop = try bench.loop(#"""
        local seen = 0
        bench_swift_subscription = flux.subscribe("bench", function(state) seen = state.count end)
        return function(n)
          for i = 1, n do flux.dispatch("bench.increment") end
          return seen
        end
        """#, chunkName: "dispatch-lua")
    }

    /// The seconds `count` dispatches take.
    func run(count: Int) throws -> Double {
        let before = bench.store.state.count
        let (seconds, seen) = try bench.time(loop, count: count)
        guard seen == before + count, bench.store.state.count == seen else {
            throw BenchmarkFailure("dispatch-lua: the subscriber read \(seen), the store holds \(bench.store.state.count), expected \(before + count)")
        }
        return seconds
    }
}
