import Flux

extension FluxHost {
    /// Builds a log line's action the way `flux.dispatch` builds it from a table: the JSON payload
    /// becomes a Lua table (numbers keep their subtype), checked with the same rules — an unknown field
    /// is refused, a script's payload must be plain data. Give it to ``ActionReplayer``.
    public var logDecoder: ActionLogEntry.Decode {
        { [weak self] name, payload in
            guard let self else { throw FluxHostError.closed }
            let lua = activeStack
            let id = try actionID(named: name, on: lua)
            guard let payload else { return try resolver.action(id) }
            let top = lua.top
            defer { lua.top = top }
            try lua.ensureSpace(2)
            do {
                // A script's payload with integer keys is written in the form saved states use (LuaAction).
                if let members = payload as? [String: Any], members.count == 1, let pairs = members[LuaStateText.format] {
                    try LuaJSON.push(pairs, on: lua, pairs: true)
                } else {
                    try LuaJSON.push(payload, on: lua, pairs: false)
                }
            } catch {
                throw ActionError.invalidPayload(action: name, message: "\(error)")
            }
            guard lua.type(at: -1) == .table else {
                throw ActionError.invalidPayload(action: name, message: "the payload must be a JSON object, got \(lua.type(at: -1).name)")
            }
            return try resolver.action(id, payloadAt: lua.top, on: lua)
        }
    }
}
