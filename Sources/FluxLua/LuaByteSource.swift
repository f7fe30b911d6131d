import CFluxLua
import CLua

/// Lua source as the bytes it is: a string literal may hold any byte (`"\xFF\xFE"` typed as two raw
/// bytes is a string of length 2, as `lua5.4` reads it), so source that is not UTF-8 is not repaired to
/// U+FFFD on its way to the compiler.
extension LuaStack {
    /// [..] -> [.., chunk]. Compiles the source `bytes`; see ``load(_:chunkName:)``.
    public func load(bytes: [UInt8], chunkName: String) throws {
        try ensureSpace(1)
        let name = chunkName.hasPrefix("@") || chunkName.hasPrefix("=") ? chunkName : "=" + chunkName
        let status = bytes.withUnsafeBufferPointer { bytes in
            name.withCString { name in
                flux_load(state, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                          bytes.count, name, "t")
            }
        }
        guard status == LUA_OK else { throw LuaError(status: status, stop: FLUX_STOP_NONE, popping: self) }
    }
}

extension LuaVM {
    /// Compiles the source `bytes` into a function without running it; see ``load(_:chunkName:)``.
    public func load(bytes: [UInt8], chunkName: String) throws -> LuaRef {
        try stack.load(bytes: bytes, chunkName: chunkName)
        return LuaRef(popping: stack)
    }

    /// Runs the source `bytes` and returns what it returns.
    @discardableResult
    public func run(bytes: [UInt8], chunkName: String) throws -> [LuaValue] {
        let base = stack.top
        defer { stack.top = base }
        try stack.load(bytes: bytes, chunkName: chunkName)
        try stack.pcall(arguments: 0)
        return stack.values(in: (base + 1) ..< (stack.top + 1))
    }
}
