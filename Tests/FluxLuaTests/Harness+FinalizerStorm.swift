extension Harness {
    /// Lua that dispatches `action` `rounds × dispatches` times with a collector step at every allocation
    /// and `objects` tables awaiting the global `finalize` before each round: finalizers then run inside the
    /// host's own allocations. Restores the collector's defaults and collects twice after.
    static func finalizerStorm(dispatching action: String, rounds: Int, objects: Int, dispatches: Int) -> String {
        """
        collectgarbage("incremental", 0, 1000, 0)
        for _ = 1, \(rounds) do
          for _ = 1, \(objects) do setmetatable({}, {__gc = finalize}) end
          for _ = 1, \(dispatches) do flux.dispatch("\(action)") end
        end
        collectgarbage("incremental", 200, 100, 13)
        collectgarbage() collectgarbage()
        """
    }
}
