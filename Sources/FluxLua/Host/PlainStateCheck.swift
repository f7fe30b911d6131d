import CLua

/// What a Lua store's initial state may hold: plain data — tables, strings, numbers, booleans. A userdata
/// (another store's state view, a subscription, a file) could be neither saved, nor compared, nor copied:
/// the state could not be saved, and from then on no undo history would be. Refused when the store is
/// defined, with the path of the value, as a table key is.
enum PlainStateCheck {
    /// The path (`state.players[2].view`) of the first value of the table at `index` that is not plain
    /// data, with what it is; nil when every value is. Never raises; a table met twice (shared or a cycle)
    /// is walked once.
    static func firstOpaqueValue(inTableAt index: Int32, on lua: LuaStack) -> (path: String, kind: String)? {
        var seen = Set<UnsafeRawPointer>()
        var path: [String] = []
        return walk(lua_absindex(lua.state, index), on: lua, path: &path, seen: &seen, depth: 0)
    }

    private static func walk(_ table: Int32, on lua: LuaStack, path: inout [String], seen: inout Set<UnsafeRawPointer>,
                             depth: Int) -> (path: String, kind: String)? {
        guard depth < 1000, let pointer = lua_topointer(lua.state, table), seen.insert(pointer).inserted,
              lua_checkstack(lua.state, 4) != 0 else { return nil } // deeper: the freeze refuses it
        let base = lua.top
        defer { lua.top = base }
        lua.pushNil()
        while lua_next(lua.state, table) != 0 {                   // [.., key, value]
            let kind = lua.type(at: -1)
            switch kind {
            case .table:
                path.append(component(at: -2, on: lua))
                if let found = walk(lua.top, on: lua, path: &path, seen: &seen, depth: depth + 1) { return found }
                path.removeLast()
            case .userdata, .lightUserdata, .thread:
                path.append(component(at: -2, on: lua))
                let name = kind == .userdata ? userdataName(at: -1, on: lua) : kind.name
                return ("state" + path.joined(), name)
            default: break
            }
            lua.pop()
        }
        return nil
    }

    /// `.name` for a key that is a name, `[k]` for any other.
    private static func component(at index: Int32, on lua: LuaStack) -> String {
        switch lua.type(at: index) {
        case .string:
            let key = lua.string(at: index) ?? ""
            let isName = key.first.map { $0 == "_" || $0.isASCII && $0.isLetter } == true
                && key.allSatisfy { $0 == "_" || $0.isASCII && ($0.isLetter || $0.isNumber) }
            return isName ? "." + key : "[" + LuaValue.quote(key) + "]"
        case .number:
            return "[" + (lua.integer(at: index).map(String.init) ?? String(describing: lua.number(at: index) ?? .nan)) + "]"
        case .boolean:
            return lua.isTruthy(at: index) ? "[true]" : "[false]"
        default:
            return "[" + lua.type(at: index).name + "]"
        }
    }

    /// What a userdata is, by its metatable's `__name` (a state view says `flux.state` or `flux.view`).
    private static func userdataName(at index: Int32, on lua: LuaStack) -> String {
        guard luaL_getmetafield(lua.state, index, "__name") == LUA_TSTRING else { return "userdata" }
        defer { lua.pop() }
        return "userdata (" + (lua.string(at: -1) ?? "?") + ")"
    }
}
