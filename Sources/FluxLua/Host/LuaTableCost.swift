import CFluxLua

extension LuaStack {
    /// About how many bytes the table `ref` holds that `shared` (another state, or nil) does not: what a
    /// Lua store's undo step keeps alive (``Flux/TransactionalTarget/cost(of:)``).
    ///
    /// Each table counts its header and a slot per pair, as Lua 5.4 lays them out. A nested table that is
    /// the very table `shared` holds under the same key is not counted nor walked: a handler's draft copies
    /// only the tables it writes, so an undo state shares the rest with the state after it, and measuring
    /// a step costs what the step changed, not the whole state. Strings are interned and shared, so they
    /// are not counted. The walk stops after `budget` pairs, so a table that contains itself is counted,
    /// not walked forever. The walk is C's (`flux_tablecost`): it runs on every dispatch a Lua store takes.
    func tableCost(of ref: LuaRef, sharingWith shared: LuaRef? = nil, budget: Int = Int(FLUX_COST_BUDGET)) -> Int {
        guard (try? ensureSpace(2)) != nil else { return 0 }
        push(ref)
        if let shared { push(shared) } else { pushNil() }
        defer { pop(2) }
        return Int(flux_tablecost(state, -2, -1, Int64(budget)))
    }
}
