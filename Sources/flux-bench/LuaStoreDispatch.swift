import Flux
import FluxLua

/// Workload 4: a store defined in Lua with `flux.store`, dispatched to from a Lua loop, with one Lua
/// subscriber reading `state.count`: the work of the baseline (3) through the `flux` module.
final class LuaStoreDispatch {
    private let bench: LuaBench
    private let loop: LuaRef
    /// The dispatches so far: what the subscriber must read next.
    private var dispatched = 0

    init(bench: LuaBench) throws {
        self.bench = bench
        loop = try bench.loop(#"""
        flux.store{
          name = "luabench",
          state = {count = 0, items = \#(LuaBench.itemsLiteral)},
          on = {["luabench.increment"] = function(s) s.count = s.count + 1 return s end},
        }
        local seen = 0
        bench_lua_subscription = flux.subscribe("luabench", function(state) seen = state.count end)
        return function(n)
          for i = 1, n do flux.dispatch("luabench.increment") end
          return seen
        end
        """#, chunkName: "lua-store")
    }

    /// The seconds `count` dispatches take.
    func run(count: Int) throws -> Double {
        let (seconds, seen) = try bench.time(loop, count: count)
        dispatched += count
        guard seen == dispatched else {
            throw BenchmarkFailure("lua-store: the subscriber read \(seen) after \(dispatched) dispatches")
        }
        return seconds
    }
}
