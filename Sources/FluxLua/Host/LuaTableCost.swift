extension LuaStack {
    /// About how many bytes the table `ref` holds, its nested tables included: what a Lua store's undo
    /// step keeps alive (``Flux/DispatchTarget/cost(of:)``).
    ///
    /// Each table counts its header and a slot per pair, as Lua 5.4 lays them out; strings are interned
    /// and shared between a state and its copies, so they are not counted. The walk stops after
    /// `budget` pairs, so a table that contains itself is counted, not walked forever.
    func tableCost(of ref: LuaRef, budget: Int = 1 << 22) -> Int {
        push(ref)
        defer { pop() }
        var pairs = budget
        return tableCost(at: -1, pairs: &pairs, depth: 0)
    }

    private static let tableHeader = 56
    private static let slot = 32

    private func tableCost(at index: Int32, pairs: inout Int, depth: Int) -> Int {
        guard type(at: index) == .table else { return 0 }
        var bytes = Self.tableHeader
        guard depth < 256, (try? ensureSpace(3)) != nil else { return bytes }
        forEachPair(in: index) {
            guard pairs > 0 else { return }
            pairs -= 1
            bytes += Self.slot + tableCost(at: -1, pairs: &pairs, depth: depth + 1)
        }
        return bytes
    }
}
