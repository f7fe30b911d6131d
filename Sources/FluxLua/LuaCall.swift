import CFluxLua
import CLua

extension LuaStack {
    /// [.., f, args…] -> [.., results…], or [..] and a thrown `LuaError`.
    ///
    /// Every call into Lua goes through here: `lua_pcall` with a message handler that records a traceback,
    /// the memory cap enforced, the instruction budget and interrupts checked. `results` is a count or
    /// `LUA_MULTRET` for all of them.
    public func pcall(arguments: Int32, results: Int32 = LUA_MULTRET) throws {
        try ensureSpace(1) // the message handler goes below the function
        var stop: Int32 = 0
        let status = flux_pcall(state, arguments, results, &stop)
        guard status == LUA_OK else { throw LuaError(status: status, stop: stop, popping: self) }
    }

    /// [..] -> [.., chunk], or [..] and a thrown `LuaError` of kind `.syntax` (or `.memory`).
    ///
    /// `chunkName` appears in messages as `name:line:`; a name starting with "@" (a file) or "=" is
    /// passed to Lua as it is. Only source text is accepted, never precompiled chunks.
    public func load(_ source: String, chunkName: String) throws {
        try ensureSpace(1)
        let name = chunkName.hasPrefix("@") || chunkName.hasPrefix("=") ? chunkName : "=" + chunkName
        var source = source
        let status = source.withUTF8 { bytes in
            name.withCString { name in
                flux_load(state, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                          bytes.count, name, "t")
            }
        }
        guard status == LUA_OK else { throw LuaError(status: status, stop: FLUX_STOP_NONE, popping: self) }
    }

    /// Calls `function` with the arguments `arguments` pushes, hands the results to `read`, then pops them.
    ///
    /// The hot path for calling Lua from Swift: nothing is allocated, the arguments go straight onto
    /// the stack. `read` receives the stack indices of the results (`results` of them, or all when
    /// `LUA_MULTRET`).
    ///
    /// ```swift
    /// let doubled = try lua.call(handler, results: 1, arguments: { $0.push(21) }) { lua, results in
    ///     lua.integer(at: results.lowerBound)
    /// }
    /// ```
    public func call<Result>(
        _ function: LuaRef,
        results: Int32 = LUA_MULTRET,
        arguments: (LuaStack) throws -> Void = { _ in },
        read: (LuaStack, Range<Int32>) throws -> Result
    ) throws -> Result {
        let base = top
        defer { top = base }
        try ensureSpace(3)
        flux_pushmsghandler(state)     // [.., handler]: placed first, so nothing needs moving
        push(function)                 // [.., handler, f]
        try arguments(self)            // [.., handler, f, args…]
        var stop: Int32 = 0
        let status = flux_pcallwith(state, top - base - 2, results, base + 1, &stop)
        guard status == LUA_OK else { throw LuaError(status: status, stop: stop, popping: self) }
        return try read(self, (base + 2) ..< (top + 1)) // [.., handler, results…]
    }

    /// Calls `function` with the arguments `arguments` pushes, discarding its results.
    public func call(_ function: LuaRef, arguments: (LuaStack) throws -> Void = { _ in }) throws {
        try call(function, results: 0, arguments: arguments) { _, _ in }
    }
}
