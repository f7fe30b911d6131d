extension LuaStack {
    /// About how many bytes the table `ref` holds that `shared` (another state, or nil) does not: what a
    /// Lua store's undo step keeps alive (``Flux/TransactionalTarget/cost(of:)``).
    ///
    /// Each table counts its header and a slot per pair, as Lua 5.4 lays them out. A nested table that is
    /// the very table `shared` holds under the same key is not counted nor walked: a handler's draft copies
    /// only the tables it writes, so an undo state shares the rest with the state after it, and measuring
    /// a step costs what the step changed, not the whole state. Strings are interned and shared, so they
    /// are not counted. The walk stops after `budget` pairs, so a table that contains itself is counted,
    /// not walked forever.
    func tableCost(of ref: LuaRef, sharingWith shared: LuaRef? = nil, budget: Int = 1 << 22) -> Int {
        push(ref)
        if let shared { push(shared) } else { pushNil() }
        defer { pop(2) }
        var pairs = budget
        return tableCost(at: -2, shared: -1, pairs: &pairs, depth: 0)
    }

    private static let tableHeader = 56
    private static let slot = 32

    private func tableCost(at index: Int32, shared: Int32, pairs: inout Int, depth: Int) -> Int {
        guard type(at: index) == .table else { return 0 }
        let table = absoluteIndex(index), other = absoluteIndex(shared)
        let otherIsTable = type(at: other) == .table
        if otherIsTable, rawEqual(table, other) { return 0 }
        var bytes = Self.tableHeader
        guard depth < 256, (try? ensureSpace(4)) != nil else { return bytes }
        forEachPair(in: table) {                // [.., key, value]
            guard pairs > 0 else { return }
            pairs -= 1
            bytes += Self.slot
            guard type(at: -1) == .table else { return }
            if otherIsTable {
                pushCopy(of: -2)                // [.., key, value, key]
                _ = rawGet(from: other)         // [.., key, value, other[key]]
            } else {
                pushNil()                       // [.., key, value, nil]
            }
            bytes += tableCost(at: -2, shared: -1, pairs: &pairs, depth: depth + 1)
            pop()                               // [.., key, value]
        }
        return bytes
    }
}
