import Flux

/// A Lua store's saved state of another shape, converted rather than lost.
///
/// A store that declares `migrate(old_state, old_version)` converts it itself (`old_version` is the
/// `version` the state was saved under, 0 for none). Without it, the saved state is kept field by field
/// where it still fits: a field of the initial state the saved one lacks gets its initial value, a saved
/// field whose type the initial state changed takes the initial value instead (the old value is
/// dropped), and every other saved field stays. The session keeps the state as it was saved beside it.
extension LuaStore {
    func decodeState(_ text: String, savedAs format: String) throws -> (state: Any, converted: String?) {
        if format == stateFormat || format == LuaStateText.format { return (try decodeState(text), nil) }
        guard let host else { throw FluxHostError.closed }
        let lua = host.activeStack
        let initial = try encodeState(snapshot())
        let convert = try host.vm.load(Self.conversion, chunkName: "=store '\(name)': converting its saved state")
        let (table, note): (LuaRef, String) = try lua.call(convert, results: 2, arguments: { lua in
            try lua.ensureSpace(5)
            try LuaStateText.push(text, on: lua)
            try LuaStateText.push(initial, on: lua)
            if let migrate { lua.push(migrate) } else { lua.pushNil() }
            lua.push(Self.version(inFormat: format) ?? 0)
            lua.push(version ?? 0)
        }, read: { lua, results in
            (lua.ref(at: results.lowerBound), lua.string(at: results.lowerBound + 1) ?? "was converted")
        })
        // Frozen as a handler's result is: a handler gets drafts only of frozen tables.
        let top = lua.top
        defer { lua.top = top }
        try lua.ensureSpace(2)
        lua.push(host.freeze)
        lua.push(table)
        try lua.pcall(arguments: 1, results: 1)
        return (lua.ref(at: -1), note)
    }

    /// The `N` of a format ending in ` vN`.
    static func version(inFormat format: String) -> Int? {
        guard let last = format.split(separator: " ").last, last.hasPrefix("v") else { return nil }
        return Int(last.dropFirst())
    }

    /// `(old, initial, migrate, old_version, version) -> state, note`; `old` and `initial` are plain
    /// tables of their own, so the conversion may change them.
    static let conversion = #"""
    local old, initial, migrate, old_version, version = ...
    if migrate then
      local new = migrate(old, old_version)
      if new == nil then new = old end
      if type(new) ~= "table" then
        error("migrate must return the new state (a table) or change old_state in place; it returned a " .. type(new), 0)
      end
      return new, "was converted by its migrate function from version " .. old_version .. " to " .. version
    end
    local added, dropped = {}, {}
    for key, value in pairs(initial) do
      local saved = old[key]
      if saved == nil then
        added[#added + 1] = tostring(key)
        old[key] = value
      elseif type(saved) ~= type(value) then
        dropped[#dropped + 1] = tostring(key) .. " (a " .. type(saved) .. ", now a " .. type(value) .. ")"
        old[key] = value
      end
    end
    table.sort(added)
    table.sort(dropped)
    local parts = {}
    if #added > 0 then parts[#parts + 1] = "added " .. table.concat(added, ", ") .. " (initial value)" end
    if #dropped > 0 then parts[#parts + 1] = "dropped the saved " .. table.concat(dropped, ", ") end
    if #parts == 0 then return old, "changed shape: every saved field kept" end
    return old, "changed shape: " .. table.concat(parts, "; ") .. "; the other saved fields kept"
    """#
}
