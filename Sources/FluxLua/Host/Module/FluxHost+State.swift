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

    /// Fills `stateProxyType`: a proxy encodes only the fields a script reads, and refuses writes.
    func defineStateProxy() {
        let wrap: (LuaStack) throws -> Void = { [weak self] in // made once, not per read
            guard let self else { throw FluxHostError.closed }
            try wrapReadOnly($0)
        }
        let reader = StateFieldEncoder(wanted: .position(0), stack: activeStack, wrap: wrap)
        stateProxyType.metamethod(.index) { lua, proxy in
            switch lua.type(at: 2) {
            case .string: try lua.withBytes(at: 2) { try reader.read(.key($0), of: proxy.state, onto: lua) }
            case .number:
                guard let position = lua.integer(at: 2) else { lua.pushNil(); return 1 }
                try reader.read(.position(position), of: proxy.state, onto: lua)
            default: lua.pushNil()
            }
            return 1
        }
        stateProxyType.metamethod(.newIndex) { lua, proxy in
            let key = lua.type(at: 2) == .string ? lua.string(at: 2) ?? "?" : lua.type(at: 2).name
            throw FluxScriptError("state of '\(proxy.storeName)' is read-only (field '\(key)'): dispatch an action to change it")
        }
        stateProxyType.metamethod(.length) { [weak self] lua, proxy in
            guard let self else { throw FluxHostError.closed }
            try pushWhole(proxy, on: lua)
            lua.push(lua.rawLength(at: -1))
            return 1
        }
        stateProxyType.metamethod(.pairs) { [weak self] lua, proxy in
            guard let self else { throw FluxHostError.closed }
            try pushWhole(proxy, on: lua)     // [proxy, view]
            lua.getGlobal("pairs")            // [proxy, view, pairs]
            lua.insertTop(at: -2)             // [proxy, pairs, view]
            try lua.pcall(arguments: 1, results: 3)
            return 3
        }
        stateProxyType.metamethod(.toString) { lua, proxy in
            lua.push("flux.state(\(proxy.storeName))")
            return 1
        }
    }

    /// [..] -> [.., view]. The whole state behind a proxy as a read-only table, encoded once.
    private func pushWhole(_ proxy: StateProxy, on lua: LuaStack) throws {
        if let whole = proxy.whole {
            lua.push(whole)
            return
        }
        try LuaEncoder().push(proxy.state, to: lua)
        try wrapReadOnly(lua)
        proxy.whole = lua.ref(at: -1)
    }
}
