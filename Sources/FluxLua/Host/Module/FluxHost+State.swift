import CFluxLua
import Flux

/// `flux.stores`, `flux.state` and `flux.actions`: what the stores are and hold; and the object type of
/// the read-only proxy through which scripts read a Swift store's state.
extension FluxHost {
    /// `flux.stores()` → the stores' names.
    func listStores(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 0)
        let names = dispatcher.stores.map(\.name)
        try LuaEncoder().push(names, to: lua)
        return 1
    }

    /// `flux.state(store)` → a copy of the store's state.
    func readState(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        try pushStateCopy(of: store(named: arguments.name(1, "store name")), on: lua)
        return 1
    }

    /// [..] -> [.., copy]. A fresh table of the store's state. Inside a handler, it is the state this
    /// action has made so far: after `wait_for`, the state the awaited store just computed, as Flux's
    /// waitFor promises.
    func pushStateCopy(of store: any StoreProtocol, on lua: LuaStack) throws {
        let handling = dispatcher.isDispatching
        if let store = store as? LuaStore {
            flux_pushdeepcopy(lua.state)
            lua.push(handling ? store.snapshot() as? LuaRef ?? store.publishedState : store.publishedState)
            try lua.pcall(arguments: 1, results: 1)
        } else {
            let state = handling ? (store as? any TransactionalTarget)?.snapshot() as? any Encodable ?? store.encodableState : store.encodableState
            try LuaEncoder().push(state, to: lua)
        }
    }

    /// `flux.actions(store?)` → the names of the actions the store (or any store) handles.
    func listActions(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        let names = lua.isNil(at: 1)
            ? dispatcher.registry.names
            : try store(named: arguments.name(1, "store name")).actionNames
        try LuaEncoder().push(names, to: lua)
        return 1
    }

    // MARK: The state proxy

    /// Sets up the views of Swift stores' states (`stateProxies`): a view encodes only the fields a script
    /// reads, and refuses writes. Each metamethod checks the view it is given (a call by hand on anything
    /// else is an argument error) and reads the state of that view's own slot.
    func defineStateProxy() {
        let lua = activeStack
        let base = lua.top
        defer { lua.top = base }
        let proxies = stateProxies
        proxies.pushMetatable(on: lua)                       // [.., mt]: __index is set
        /// `body` as the metamethod `event`, given the slot of the view at 1.
        func define(_ event: LuaMetamethod, _ body: @escaping (LuaStack, Int) throws -> Int32) {
            lua.push(function: { lua in
                guard let slot = proxies.slot(at: 1, on: lua) else {
                    throw LuaArgumentError(1, function: event.rawValue, "flux.state expected, got \(lua.type(at: 1).name)")
                }
                return try body(lua, slot)
            })
            lua.rawSet(event.rawValue, in: -2)
        }
        define(.newIndex) { lua, slot in
            let key = lua.type(at: 2) == .string ? lua.string(at: 2) ?? "?" : lua.type(at: 2).name
            throw FluxScriptError("state of '\(proxies.storeNames[slot])' is read-only (field '\(key)'): dispatch an action to change it")
        }
        define(.length) { [reference] lua, slot in
            let host = try reference.require()
            try host.pushWhole(slot, on: lua)
            lua.push(Int(flux_viewlength(lua.state, -1))) // the table's, behind its view
            return 1
        }
        define(.pairs) { [reference] lua, slot in
            let host = try reference.require()
            try host.pushWhole(slot, on: lua)     // [view, whole]
            try lua.ensureSpace(2)
            flux_pushviewpairs(lua.state)         // [view, next, whole, nil]: not the global `pairs`, a script's
            return 3
        }
        define(.toString) { lua, slot in
            lua.push("flux.state(\(proxies.storeNames[slot]))")
            return 1
        }
    }

    /// [..] -> [.., view]. The whole state in `slot` of `stateProxies` as a read-only table, encoded once.
    private func pushWhole(_ slot: Int, on lua: LuaStack) throws {
        if let whole = stateProxies.wholes[slot] {
            lua.push(whole)
            return
        }
        let state = stateProxies.state(in: slot)
        try LuaEncoder().push(state, to: lua)
        try wrapReadOnly(lua)
        stateProxies.keep(whole: lua.ref(at: -1), in: slot)
    }
}
