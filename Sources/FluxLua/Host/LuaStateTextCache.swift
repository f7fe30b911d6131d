import CLua
import CFluxLua

/// The text ``LuaStateText`` wrote for each published table of a Lua state, kept while the table lives:
/// a published table never changes, so the parts of a state a line did not touch (shared with the state
/// saved before) are copied from here, and saving a large state after a one-field change costs the
/// tables that changed, not a walk of the whole state.
///
/// Two tables with weak keys, so an entry goes with its table: `texts[t]`, the text, and `counts[t]`,
/// the values it holds (a state past ``LuaValue/maximumValues`` is refused as when walked). Only
/// tables whose text is at most ``largest`` bytes are kept: a state's root and its large tables are
/// copied by every change, and keeping theirs would hold a copy of the whole text per undo step.
final class LuaStateTextCache {
    /// The longest text kept.
    static let largest = 16 * 1024

    let texts: LuaRef
    let counts: LuaRef

    init(on lua: LuaStack) throws {
        try lua.ensureSpace(3)
        func weakTable() -> LuaRef {
            lua.pushTable()
            lua.pushTable(fieldCapacity: 1)
            lua.push("k")
            lua.rawSet("__mode", in: -2)
            _ = lua_setmetatable(lua.state, -2)
            return LuaRef(popping: lua)
        }
        texts = weakTable()
        counts = weakTable()
    }
}
