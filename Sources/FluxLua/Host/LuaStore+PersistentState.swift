import Flux

/// A Lua store's states saved as ``LuaStateText``: integers, floats and keys of every type come back
/// as they were.
extension LuaStore: PersistentState {
    var stateFormat: String { LuaStateText.format }

    func encodeState(_ snapshot: Any) throws -> String {
        guard let table = snapshot as? LuaRef else { throw FluxScriptError("not a state of store '\(name)'") }
        guard let host else { throw FluxHostError.closed }
        let lua = host.activeStack
        try lua.ensureSpace(1)
        lua.push(table)
        defer { lua.pop() }
        return try LuaStateText.encode(at: -1, on: lua)
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
        return lua.ref(at: -1)
    }
}
