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

    func decodeState(_ text: String) throws -> Any {
        guard let host else { throw FluxHostError.closed }
        let lua = host.activeStack
        try LuaStateText.push(text, on: lua)
        defer { lua.pop() }
        guard lua.type(at: -1) == .table else { throw FluxScriptError("the saved state is not a table") }
        return lua.ref(at: -1)
    }
}
