extension LuaVM {
    /// Makes `require` look for modules in `directory` first: puts `directory/?.lua;directory/?/init.lua`
    /// at the front of `package.path` (once, however often it is called for the same directory).
    ///
    /// ```swift
    /// try vm.addPackagePath("/home/me/.config/fluxsh/lua")
    /// try vm.run("local theme = require 'theme'")  // …/lua/theme.lua or …/lua/theme/init.lua
    /// ```
    public func addPackagePath(_ directory: String) throws {
        let base = stack.top
        defer { stack.top = base }
        guard stack.getGlobal("package") == .table else {   // [.., package]
            throw LuaError(message: "cannot add to package.path: the package library is not loaded")
        }
        let current = stack.rawGet("path", from: -1) == .string ? stack.string(at: -1) ?? "" : ""
        stack.pop()                                          // [.., package]
        var directory = directory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        let entries = ["\(directory)/?.lua", "\(directory)/?/init.lua"]
        guard !current.split(separator: ";").contains(where: { $0 == entries[0] }) else { return }
        stack.push((entries + (current.isEmpty ? [] : [current])).joined(separator: ";"))
        stack.rawSet("path", in: -2)                         // [.., package]
    }
}
