import Flux

/// The `flux` functions whose effect depends on who calls them, bound to an owner: each plugin's `flux`
/// has its own, the VM's `flux` (what the prompt and scripts use) the session's.
///
/// A function registers as the owner whose `flux` it came from, wherever and whenever it is called: a
/// plugin's subscriber fired while another plugin loads, a finalizer, a coroutine resumed at the prompt.
/// So a callback acts as the owner that made it, never as whoever happens to be running.
extension FluxHost {
    /// The functions that register, list or end what an owner holds.
    private static var ownedFunctions: [(name: String, body: (FluxHost, LuaArguments) throws -> Int32)] { [
        ("store", { try $0.defineStore($1) }),
        ("view", { try $0.defineView($1) }),
        ("subscribe", { try $0.subscribe($1) }),
        ("subscriptions", { try $0.listSubscriptions($1) }),
        ("watch", { try $0.watch($1) }),
    ] }

    /// [..] -> [.., table]. `owner`'s own `flux` functions, in a new table; for a plugin, also a
    /// `globals` that refuses (a plugin's globals are shown to a person at the prompt, not to other plugins).
    func pushOwnedFunctions(of owner: Owner, on lua: LuaStack) {
        lua.pushTable()
        setOwnedFunctions(of: owner, on: lua)
        if owner != .session {
            lua.push(function: { _ in throw FluxScriptError("flux.globals is for the prompt: a plugin keeps to its own globals") })
            lua.rawSet("globals", in: -2)
        }
    }

    /// [.., table] -> [.., table]. Sets `owner`'s functions in the table on top.
    private func setOwnedFunctions(of owner: Owner, on lua: LuaStack) {
        let reference = self.reference
        for (name, body) in Self.ownedFunctions {
            lua.push(function: { lua in
                let host = try reference.require()
                return try host.acting(as: owner, from: lua) { try body(host, LuaArguments(lua, function: name)) }
            })
            lua.rawSet(name, in: -2)
        }
    }

    /// Binds the VM's `flux` functions to the session, adds `flux.globals(plugin)`, and has watches follow
    /// their views.
    func installOwnedFunctions() {
        viewOwners.onChange = { [reference] name in reference.host?.viewChanged(name) }
        let lua = vm.stack
        let top = lua.top
        defer { lua.top = top }
        lua.pushModule("flux")
        setOwnedFunctions(of: .session, on: lua)
        let reference = self.reference
        lua.push(function: { lua in
            let host = try reference.require()
            return try host.pushGlobals(LuaArguments(lua, function: "globals"))
        })
        lua.rawSet("globals", in: -2)
    }

    /// Runs `body`, a `flux` function called on the thread of `lua`, as `owner`.
    private func acting(as owner: Owner, from lua: LuaStack, _ body: () throws -> Int32) throws -> Int32 {
        let outerStack = activeStack, outerOwner = runningOwner
        activeStack = lua
        runningOwner = owner
        defer {
            activeStack = outerStack
            runningOwner = outerOwner
        }
        do {
            return try body()
        } catch {
            noteHandlerFailure(error)
            throw error
        }
    }

    /// `flux.globals(plugin)` → a read-only view of the plugin's globals (what its files set), for a
    /// person debugging it at the prompt.
    private func pushGlobals(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        let name = try arguments.name(1, "plugin name")
        guard let environment = pluginEnvironments[name], let readonly = pluginReadOnly else {
            let loaded = plugins.map(\.name)
            throw FluxScriptError("no globals of a plugin '\(name)' (loaded: \(loaded.isEmpty ? "none" : loaded.joined(separator: ", ")))")
        }
        let view = try lua.call(readonly, results: 1, arguments: { lua in
            lua.push(environment)
            lua.push("plugin \(name)'s globals")
        }) { lua, results in lua.ref(at: results.lowerBound) }
        lua.push(view)
        return 1
    }
}
