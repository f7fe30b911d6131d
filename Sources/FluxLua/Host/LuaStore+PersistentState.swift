import Flux

/// A Lua store's states saved as ``LuaStateText``: integers, floats and keys of every type come back
/// as they were.
///
/// The format names the initial state's fields and their types (`lua-pairs-1 {count: number}`) and the
/// store's `version` when it declares one (`… v2`): a state saved in another shape is converted
/// (`LuaStore+Migration.swift`) rather than given to handlers that do not expect it. A state saved
/// before formats named fields is read as it is.
///
/// A state is written in pieces (``LuaStateTextCache``): a line that changed one field of a large state
/// writes the run of entries around it, and the session stores the other pieces as the rows it stored
/// them in before (``pieces(ofEncoded:)``).
extension LuaStore: PiecewiseState {
    var stateFormat: String { LuaStateText.format + " " + stateShape + (version.map { " v\($0)" } ?? "") }

    /// Any Lua state: one of another shape or version is converted (``decodeState(_:savedAs:)``).
    func reads(format: String) -> Bool { format == LuaStateText.format || format.hasPrefix(LuaStateText.format + " ") }

    /// The table at `index`'s fields (its string keys) and their values' types, sorted: `{count: number,
    /// items: table}`.
    static func shape(at index: Int32, on lua: LuaStack) -> String {
        var fields: [String] = []
        lua.forEachPair(in: index) {
            if let key = lua.string(at: -2) { fields.append(key + ": " + lua.type(at: -1).name) }
        }
        return "{" + fields.sorted().joined(separator: ", ") + "}"
    }

    func encodeState(_ snapshot: Any) throws -> String {
        guard let table = snapshot as? LuaRef else { throw FluxScriptError("not a state of store '\(name)'") }
        guard let host else { throw FluxHostError.closed }
        let lua = host.activeStack
        try lua.ensureSpace(2)
        lua.push(table)
        defer { lua.pop() }
        let cache = try textCache(host, on: lua)
        if let text = cache.readText(of: -1, on: lua) { return text }
        let pieces = try LuaStateText.encodePieces(at: -1, on: lua, cache: cache, store: name)
        cache.forgetStores { host.dispatcher.store(named: $0) == nil }
        let text = StatePiece.joined(pieces)
        cache.remember(written: text, pieces: pieces)
        return text
    }

    func pieces(ofEncoded text: String) -> [StatePiece]? {
        host?.stateTextCache?.pieces(of: text)
    }

    private func textCache(_ host: FluxHost, on lua: LuaStack) throws -> LuaStateTextCache {
        if let cache = host.stateTextCache { return cache }
        let cache = try LuaStateTextCache(on: lua)
        host.stateTextCache = cache
        return cache
    }

    /// The saved state frozen as a handler's result is: a handler gets drafts only of frozen tables, so
    /// an unfrozen one would be changed in place, under the undo steps that hold it.
    func decodeState(_ text: String) throws -> Any {
        guard let host else { throw FluxHostError.closed }
        let lua = host.activeStack
        try lua.ensureSpace(2)
        let top = lua.top
        defer { lua.top = top }
        lua.push(host.freeze)
        try LuaStateText.push(text, on: lua)
        guard lua.type(at: -1) == .table else { throw FluxScriptError("the saved state is not a table") }
        try lua.pcall(arguments: 1, results: 1)
        // Written again as it is (an undo's journal snapshot, its save), it is this text.
        try textCache(host, on: lua).remember(read: -1, from: text, on: lua)
        return lua.ref(at: -1)
    }
}
