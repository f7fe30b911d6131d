import FluxLua

/// Workload 3, the baseline of 2 and 4: a Redux-style store written in plain Lua, in the same VM.
///
/// A reducer returning a new state table, a list of listeners, and `dispatch` calling both; one
/// listener reads `state.count`. The action table is built once, as `flux.dispatch` resolves a name
/// once: the baseline does no work the measured paths are spared.
final class LuaRedux {
    private let bench: LuaBench
    private let loop: LuaRef
    /// The dispatches so far: what the subscriber must read next.
    private var dispatched = 0

    init(bench: LuaBench) throws {
        self.bench = bench
        loop = try bench.loop(#"""
        local function create_store(reducer, state)
          local listeners = {}
          local store = {}
          function store.get_state() return state end
          function store.subscribe(listener) listeners[#listeners + 1] = listener end
          function store.dispatch(action)
            state = reducer(state, action)
            for i = 1, #listeners do listeners[i](state) end
          end
          return store
        end

        local function reducer(s, action)
          if action.type == "bench.increment" then
            return {count = s.count + 1, items = s.items}
          end
          return s
        end

        local store = create_store(reducer, {count = 0, items = \#(LuaBench.itemsLiteral)})
        local seen = 0
        store.subscribe(function(state) seen = state.count end)
        local increment = {type = "bench.increment"}
        return function(n)
          for i = 1, n do store.dispatch(increment) end
          return seen
        end
        """#, chunkName: "lua-redux")
    }

    /// The seconds `count` dispatches take.
    func run(count: Int) throws -> Double {
        let (seconds, seen) = try bench.time(loop, count: count)
        dispatched += count
        guard seen == dispatched else {
            throw BenchmarkFailure("lua-redux: the listener read \(seen) after \(dispatched) dispatches")
        }
        return seconds
    }
}
