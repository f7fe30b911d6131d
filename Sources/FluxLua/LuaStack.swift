import CFluxLua
import CLua

/// A view of one Lua thread's stack: what a Swift function called from Lua receives, and what
/// `LuaVM` works on.
///
/// No method here raises a Lua error, so all are safe to call from Swift: table access is raw (no
/// metamethods run), strings are read only from string values (never converted in place), and Lua code
/// runs only through `pcall`, which catches its errors. Indices follow the C API: 1 is the bottom,
/// -1 the top.
///
/// Lua guarantees 20 free slots when Swift is called; call `ensureSpace(_:)` before pushing more.
///
/// ```swift
/// vm.register("add") { lua in
///     let sum = try lua.decode(Int.self, at: 1) + lua.decode(Int.self, at: 2)
///     lua.push(sum)
///     return 1
/// }
/// ```
public struct LuaStack {
    /// The thread this stack belongs to (a `lua_State *`).
    public let state: OpaquePointer

    /// A view of the stack of `state`, which must belong to a `LuaVM`.
    public init(_ state: OpaquePointer) {
        self.state = state
    }

    // MARK: Size

    /// The index of the top value, which is also the number of values on the stack.
    public var top: Int32 {
        get { lua_gettop(state) }
        nonmutating set { lua_settop(state, newValue) }
    }

    /// Removes `count` values from the top.
    public func pop(_ count: Int32 = 1) {
        flux_pop(state, count)
    }

    /// Makes room for `count` more values, or throws when the stack cannot grow that far.
    public func ensureSpace(_ count: Int32) throws {
        guard lua_checkstack(state, count) != 0 else {
            throw LuaError(kind: .runtime, message: "stack overflow (cannot grow the Lua stack by \(count))")
        }
    }

    /// `index` as an index from the bottom, which stays valid while values are pushed and popped above it.
    public func absoluteIndex(_ index: Int32) -> Int32 {
        lua_absindex(state, index)
    }

    // MARK: Types

    /// The type of the value at `index`; `.none` past the top.
    public func type(at index: Int32) -> LuaType {
        LuaType(rawValue: lua_type(state, index)) ?? .none
    }

    /// Whether the value at `index` is nil or absent.
    public func isNil(at index: Int32) -> Bool {
        lua_type(state, index) <= LUA_TNIL
    }

    /// Whether the value at `index` is a number with the integer subtype.
    public func isInteger(at index: Int32) -> Bool {
        lua_isinteger(state, index) != 0
    }

    // MARK: Pushing

    /// [..] -> [.., nil]
    public func pushNil() {
        lua_pushnil(state)
    }

    /// [..] -> [.., boolean]
    public func push(_ value: Bool) {
        lua_pushboolean(state, value ? 1 : 0)
    }

    /// [..] -> [.., integer]
    public func push(_ value: Int) {
        lua_pushinteger(state, lua_Integer(value))
    }

    /// [..] -> [.., float]. Non-finite values are fine: Lua has inf and nan.
    public func push(_ value: Double) {
        lua_pushnumber(state, value)
    }

    /// [..] -> [.., string]. The UTF-8 bytes are copied by length, so "\0" survives.
    public func push(_ value: String) {
        var value = value
        value.withUTF8 { bytes in
            _ = lua_pushlstring(state, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, bytes.count)
        }
    }

    /// [..] -> [.., string]. A byte string, which need not be UTF-8.
    public func push(bytes: some Collection<UInt8>) {
        let pushed: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            _ = lua_pushlstring(state, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, buffer.count)
        }
        if pushed == nil { push(bytes: Array(bytes)) }
    }

    /// [..] -> [.., light userdata]. A bare pointer; Lua neither owns nor frees it.
    public func push(lightUserdata pointer: UnsafeMutableRawPointer?) {
        lua_pushlightuserdata(state, pointer)
    }

    /// [.., v@index, ..] -> [.., v@index, .., v]
    public func pushCopy(of index: Int32) {
        lua_pushvalue(state, index)
    }

    /// [..] -> [.., {}]. The capacities only preallocate.
    public func pushTable(arrayCapacity: Int32 = 0, fieldCapacity: Int32 = 0) {
        lua_createtable(state, arrayCapacity, fieldCapacity)
    }

    /// [..] -> [.., _G]
    public func pushGlobals() {
        flux_pushglobaltable(state)
    }

    /// [.., v] -> [..]. Moves the top value to `index`, shifting the values above it up.
    public func insertTop(at index: Int32) {
        flux_insert(state, index)
    }

    /// [.., v@index, ..] -> [.., ..]. Removes the value at `index`, shifting the values above it down.
    public func remove(at index: Int32) {
        flux_remove(state, index)
    }

    // MARK: Reading (never converts, never raises)

    /// The boolean at `index`, or nil when the value is not a boolean.
    public func boolean(at index: Int32) -> Bool? {
        lua_type(state, index) == LUA_TBOOLEAN ? lua_toboolean(state, index) != 0 : nil
    }

    /// Lua's truth: false only for `nil` and `false`.
    public func isTruthy(at index: Int32) -> Bool {
        lua_toboolean(state, index) != 0
    }

    /// The number at `index` as an integer: an integer, or a float with an integral value in range.
    /// Nil for anything else (strings are not converted).
    public func integer(at index: Int32) -> Int? {
        guard lua_type(state, index) == LUA_TNUMBER else { return nil }
        var isInteger: Int32 = 0
        let value = lua_tointegerx(state, index, &isInteger)
        return isInteger != 0 ? Int(value) : nil
    }

    /// The number at `index` as a double; nil when the value is not a number.
    public func number(at index: Int32) -> Double? {
        lua_type(state, index) == LUA_TNUMBER ? lua_tonumberx(state, index, nil) : nil
    }

    /// The string at `index`, with invalid UTF-8 repaired; nil when the value is not a string
    /// (numbers are not converted).
    public func string(at index: Int32) -> String? {
        withBytes(at: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the bytes of the string at `index`, valid only during the call; nil when the
    /// value is not a string.
    public func withBytes<Result>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        guard lua_type(state, index) == LUA_TSTRING else { return nil }
        var length = 0
        let bytes = lua_tolstring(state, index, &length) // a string: no conversion, no allocation
        return try body(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// The pointer a light or full userdata holds; nil for other values.
    public func userdata(at index: Int32) -> UnsafeMutableRawPointer? {
        lua_touserdata(state, index)
    }

    /// The raw length: a string's byte count, a table's border (`#t` without `__len`), a userdata's size.
    public func rawLength(at index: Int32) -> Int {
        Int(lua_rawlen(state, index))
    }

    /// Whether the values at the two indices are primitively equal (no `__eq`).
    public func rawEqual(_ first: Int32, _ second: Int32) -> Bool {
        lua_rawequal(state, first, second) != 0
    }

    // MARK: Tables (raw: no metamethods)

    /// [..] -> [.., t[key]] where t is the table at `table`. Returns the type of the value pushed.
    @discardableResult
    public func rawGet(_ key: String, from table: Int32) -> LuaType {
        let table = absoluteIndex(table)
        push(key)
        return LuaType(rawValue: lua_rawget(state, table)) ?? .nil
    }

    /// [.., v] -> [..], doing t[key] = v where t is the table at `table`.
    public func rawSet(_ key: String, in table: Int32) {
        let table = absoluteIndex(table)
        push(key)          // [.., v, key]
        flux_insert(state, -2) // [.., key, v]
        lua_rawset(state, table)
    }

    /// [..] -> [.., t[index]] where t is the table at `table`. Returns the type of the value pushed.
    @discardableResult
    public func rawGet(_ index: Int, from table: Int32) -> LuaType {
        LuaType(rawValue: lua_rawgeti(state, table, lua_Integer(index))) ?? .nil
    }

    /// [.., v] -> [..], doing t[index] = v where t is the table at `table`.
    public func rawSet(_ index: Int, in table: Int32) {
        lua_rawseti(state, table, lua_Integer(index))
    }

    /// [.., key] -> [.., t[key]] where t is the table at `table`.
    @discardableResult
    public func rawGet(from table: Int32) -> LuaType {
        LuaType(rawValue: lua_rawget(state, table)) ?? .nil
    }

    /// [.., key, v] -> [..], doing t[key] = v where t is the table at `table`.
    public func rawSet(in table: Int32) {
        lua_rawset(state, table)
    }

    /// [..] -> [.., _G[name]] (raw). Returns the type of the value pushed.
    @discardableResult
    public func getGlobal(_ name: String) -> LuaType {
        pushGlobals()
        let type = rawGet(name, from: -1)
        flux_remove(state, -2)
        return type
    }

    /// [.., v] -> [..], doing _G[name] = v (raw).
    public func setGlobal(_ name: String) {
        pushGlobals()           // [.., v, _G]
        flux_insert(state, -2)  // [.., _G, v]
        rawSet(name, in: -2)    // [.., _G]
        pop()
    }

    /// [..] -> [.., metatable] when the value at `index` has one (returns true); [..] otherwise.
    @discardableResult
    public func pushMetatable(of index: Int32) -> Bool {
        lua_getmetatable(state, index) != 0
    }

    /// [.., mt] -> [..]. Sets the metatable of the value at `index` to the table on top (or removes it
    /// when the top is nil). Only the `__gc` present at this moment makes the value finalizable.
    public func setMetatable(of index: Int32) {
        lua_setmetatable(state, index)
    }

    /// Calls `body` for each key/value pair of the table at `table`, in `next` order, with the key at -2
    /// and the value at -1. `body` must leave the stack as it found it and must not add keys to the table;
    /// when it throws, the stack is restored.
    public func forEachPair(in table: Int32, _ body: () throws -> Void) rethrows {
        let table = absoluteIndex(table)
        let base = top
        lua_pushnil(state)                      // [.., nil]
        while lua_next(state, table) != 0 {     // [.., key, value]
            do { try body() } catch { top = base; throw error }
            pop()                               // [.., key]
        }
    }
}
