import Flux

/// The `flux` module: every function scripts call, listed once here, as a C library lists its functions
/// in a `luaL_Reg` array. Each lives in the file of its area (`Module/`), checks its arguments and raises
/// a Lua error with a clear message on bad input, changing nothing.
extension FluxHost {
    func installModule() {
        let lua = vm.stack
        loadStateFunctions(on: lua)
        defineStateProxy()
        defineSubscription()
        installEffects()

        let functions: [(name: String, body: (FluxHost, LuaArguments) throws -> Int32)] = [
            // Stores and their state (FluxHost+State)
            ("stores", { try $0.listStores($1) }),
            ("state", { try $0.readState($1) }),
            ("actions", { try $0.listActions($1) }),
            // Dispatching (FluxHost+Dispatching)
            // ("dispatch": below, with its shortcut for a name resolved before)
            ("group", { try $0.group($1) }),
            ("undo", { try $0.undo($1) }),
            ("redo", { try $0.redo($1) }),
            // Subscribing (FluxHost+Subscribing)
            ("subscribe", { try $0.subscribe($1) }),
            ("subscriptions", { try $0.listSubscriptions($1) }),
            // Lua stores (FluxHost+StoreDefinition)
            ("store", { try $0.defineStore($1) }),
            ("derived", { try $0.defineDerived($1) }),
            // Views (FluxHost+Views)
            ("view", { try $0.defineView($1) }),
            ("views", { try $0.listViews($1) }),
            ("model", { try $0.readModel($1) }),
            ("render", { try $0.renderView($1) }),
            ("watch", { try $0.watch($1) }),
            // Live views (FluxHost+Pilot)
            ("pilot", { try $0.pilot($1) }),
            // Plugins: commands, events, options (Plugin/PluginExtras)
            ("command", { try $0.defineCommand($1) }),
            ("on_event", { try $0.onEvent($1) }),
            ("configure", { try $0.configure($1) }),
            ("options", { try $0.readOptions($1) }),
            // Effects (FluxHost+Effects)
            ("after", { try $0.after($1) }),
            ("every", { try $0.every($1) }),
            ("spawn", { try $0.spawn($1) }),
            ("watch_path", { try $0.watchPath($1) }),
            ("on", { try $0.on($1) }),
            ("effects", { try $0.listEffects($1) }),
            ("advance", { try $0.advance($1) }),
            ("settle", { try $0.settle($1) }),
            // Outboxes (FluxHost+Outbox)
            ("outbox", { try $0.defineOutbox($1) }),
            ("outbox_state", { try $0.outboxState($1) }),
        ]
        for (name, body) in functions { function(name, body) }
        // `flux.dispatch(name)` with a name resolved before: its id, found in C in the resolver's table,
        // picks the action; no argument to read in Swift. Whatever else goes through `dispatch(_:)`. The
        // resolver only adds names, so the name dispatched last is not looked up again. The keyed body is
        // called from C directly (`dispatchResolved`), with the host's reference.
        let reference = self.reference
        vm.register("dispatch", in: "flux", { lua in
            let host = try reference.require()
            return try host.entered(from: lua) { try host.dispatch(LuaArguments(lua, function: "dispatch")) }
        }, keyedBy: resolver.names, entry: { state, context, id in
            FluxHost.dispatchResolved(on: LuaStack(state!), reference: context!, id: Int(id))
        }, context: reference)
        lua.top = 0
    }

    /// `flux.dispatch(name)` with the id of a name resolved before, as `flux_keyedtrampoline` calls it:
    /// 0, or a FLUX_RAISE value once the error is pushed.
    private static func dispatchResolved(on lua: LuaStack, reference: UnsafeMutableRawPointer, id: Int) -> Int32 {
        CContext.borrow(reference, as: HostReference.self) { reference in // the function keeps it
            do {
                let host = try reference.require()
                return try host.entered(from: lua) { try host.dispatch(resolved: id) }
            } catch {
                return lua.pushError(error)
            }
        }
    }

    /// Adds `flux.name`, a function of the host's user (a shell's `flux.log`): `body` gets the call's
    /// arguments, whose reader knows the name, and runs as the module's own functions do.
    public func addFunction(named name: String, _ body: @escaping (LuaArguments) throws -> Int32) {
        function(name) { _, arguments in try body(arguments) }
    }

    /// Adds `flux.name`; `body` runs with the host and the call's arguments, whose reader knows the
    /// name. The VM may outlive the host (a finalizer, a VM handed to another host): a call then fails
    /// with an error (``HostReference``).
    private func function(_ name: String, _ body: @escaping (FluxHost, LuaArguments) throws -> Int32) {
        let reference = self.reference
        vm.register(name, in: "flux") { lua in
            let host = try reference.require()
            return try host.entered(from: lua) { try body(host, LuaArguments(lua, function: name)) }
        }
    }

    /// Runs `body`, a `flux` function called on the thread of `lua`, with that thread active.
    @inline(__always)
    private func entered(from lua: LuaStack, _ body: () throws -> Int32) throws -> Int32 {
        let outer = activeStack
        activeStack = lua
        defer { activeStack = outer }
        do {
            return try body()
        } catch {
            noteHandlerFailure(error)
            throw error
        }
    }

    /// Keeps the traceback of a Lua store handler that failed: the error reaches the script as a message,
    /// and ``describe(_:)`` shows the handler's own frames next to the caller's.
    func noteHandlerFailure(_ error: any Error) {
        guard case let .storeFailed(_, _, underlying) = error as? DispatcherError,
              let failure = underlying as? FluxScriptError, let traceback = failure.traceback else { return }
        lastHandlerFailure = (String(describing: error), traceback)
    }
}
