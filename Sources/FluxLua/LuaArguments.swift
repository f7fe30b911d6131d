/// The arguments of a Swift function called from Lua, read by a reader that knows the function's name,
/// so that a bad one is reported as `luaL_argerror` reports it:
/// "bad argument #2 to 'subscribe' (function expected, got nil)".
///
/// Lua finds a C function's name from the calling frame (`lua_getinfo` with "n"); a Swift function's
/// name is given once, where it is registered, and each call's reader carries it (``FluxHost`` makes
/// them for the `flux` module's functions and for those added with ``FluxHost/addFunction(named:_:)``).
///
/// ```swift
/// host.addFunction(named: "render") { arguments in
///     try arguments.expect(atMost: 2)
///     let view = try arguments.name(1, "view name")
///     guard let width = arguments.stack.integer(at: 2) else {
///         throw arguments.error(2, "width expected, got \(arguments.stack.type(at: 2).name)")
///     }
///     …
/// }
/// ```
public struct LuaArguments {
    /// The stack of the call: its arguments at indices 1…``count``.
    public let stack: LuaStack
    /// The function's name as scripts call it, as errors show it.
    public let function: String

    /// The arguments of a call of `function` on `stack`.
    public init(_ stack: LuaStack, function: String) {
        self.stack = stack
        self.function = function
    }

    /// How many arguments the call passed.
    public var count: Int32 { stack.top }

    /// The error for argument `position`: "bad argument #`position` to '`function`' (`problem`)".
    public func error(_ position: Int32, _ problem: String) -> LuaArgumentError {
        LuaArgumentError(position, function: function, problem)
    }

    /// Refuses more than `limit` arguments: a mistyped call should not pass silently.
    public func expect(atMost limit: Int32) throws(LuaArgumentError) {
        guard count <= limit else {
            throw error(limit + 1, "no more than \(limit) argument\(limit == 1 ? "" : "s") expected, got \(count)")
        }
    }

    /// Refuses argument `position` unless it is of `type` (`luaL_checktype`): "table expected, got nil".
    public func expect(_ type: LuaType, at position: Int32) throws(LuaArgumentError) {
        let found = stack.type(at: position)
        guard found == type else { throw error(position, "\(type.name) expected, got \(found.name)") }
    }

    /// The function argument at `position`, held for calling later: "function expected, got nil" when it
    /// is not one (a table with `__call` is not).
    public func function(_ position: Int32) throws(LuaArgumentError) -> LuaRef {
        try expect(.function, at: position)
        return stack.ref(at: position)
    }

    /// The string argument at `position`, as a ``Name``; `what` names it in errors ("store name").
    public func name(_ position: Int32, _ what: String) throws(LuaArgumentError) -> String {
        try name(at: position, of: position, what)
    }

    /// The string at stack index `index` — argument `position` itself, or a value read out of it such as
    /// a table's field — as a ``Name``. Errors blame argument `position`, never a stack slot.
    public func name(at index: Int32, of position: Int32, _ what: String) throws(LuaArgumentError) -> String {
        guard stack.type(at: index) == .string else {
            throw error(position, "\(what) expected, got \(stack.type(at: index).name)")
        }
        do {
            return try stack.name(at: index) ?? ""
        } catch {
            throw self.error(position, "\(what): \(error)")
        }
    }
}
