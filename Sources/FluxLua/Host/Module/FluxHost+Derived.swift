import Flux

/// What a store `flux.derived` defined computes its state from: its sources, by name, and `compute`,
/// called through a handler that hands it their states in order.
struct LuaDerivation {
    let sources: [String]
    let compute: LuaRef
    /// `function(draft, states) return compute(unpack(states)) end`: a store handler, so that the
    /// result is frozen and compared with the state before as a handler's is (an equal one is no change).
    let handler: LuaRef

    /// [..] -> [.., {n = #sources, state…}]: each source's state as this dispatch has made it so far
    /// (a copy: the result may keep any part of it).
    func pushSources(host: FluxHost, on lua: LuaStack) throws {
        try lua.ensureSpace(4)
        lua.pushTable(arrayCapacity: Int32(sources.count), fieldCapacity: 1)
        lua.push(sources.count)
        lua.rawSet("n", in: -2)
        for (index, name) in sources.enumerated() {
            try host.pushStateCopy(of: host.store(named: name), on: lua)
            lua.rawSet(index + 1, in: -2)
        }
    }
}

/// `flux.derived{name, from, compute}`: a Lua store whose state is computed from other stores' states,
/// again in each dispatch that changes one of them and in no other (``Dispatcher/derive(_:from:)``).
extension FluxHost {
    /// The fields `flux.derived{…}` reads; any other is refused.
    static var derivedFields: [String] { ["name", "from", "compute"] }

    /// `flux.derived{name = …, from = {store, …}, compute = function(state, …) return {…} end}`.
    ///
    /// Defining it again (a reloaded plugin) keeps its state and takes the new sources and `compute`.
    func defineDerived(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        let (name, spelling) = try definedName(arguments, fields: Self.derivedFields)

        guard lua.rawGet("from", from: 1) == .table else {
            throw arguments.error(1, "field 'from' must be a list of store names, got \(lua.type(at: -1).name)")
        }
        let sources = try lua.decode([String].self, at: -1, root: "from").map(Name.normalized)
        lua.pop()
        guard !sources.isEmpty else { throw arguments.error(1, "field 'from' names no store: a derived store needs at least one source") }
        let stores = try sources.map { source in
            guard source != name else { throw arguments.error(1, "field 'from' names '\(name)' itself") }
            return try store(named: source)
        }

        guard lua.rawGet("compute", from: 1) == .function else {
            throw arguments.error(1, "field 'compute' must be a function(state, …) returning the state, got \(lua.type(at: -1).name)")
        }
        let compute = lua.ref(at: -1)
        lua.pop()
        guard !dispatcher.isDispatching else {
            throw FluxScriptError("cannot define store '\(name)' while an action is being handled")
        }
        let derivation = LuaDerivation(sources: sources, compute: compute, handler: try derivedHandler(compute, count: sources.count))

        if let existing = dispatcher.store(named: name) {
            let owner = (existing as? LuaStore)?.owner ?? .swift
            guard owner == runningOwner, let existing = existing as? LuaStore, existing.derivation != nil else {
                if owner == runningOwner { throw FluxScriptError("store '\(name)' is defined already by flux.store: a derived store needs a name of its own") }
                throw OwnershipError(kind: "store", name: name, owner: owner)
            }
            try checkSpelling(spelling, ofStore: name)
            try dispatcher.derive(existing, from: stores)
            existing.derivation = derivation
        } else {
            // The state now: compute on the sources' states, frozen as a handler's result is.
            try lua.ensureSpace(4)
            lua.push(freeze)
            lua.push(derivation.handler)
            lua.pushNil()
            try derivation.pushSources(host: self, on: lua)
            try lua.pcall(arguments: 2, results: 1)
            guard lua.type(at: -1) == .table else {
                throw FluxScriptError("compute of derived store '\(name)' must return its state table, got \(lua.type(at: -1).name)")
            }
            if let (path, kind) = PlainStateCheck.firstOpaqueValue(inTableAt: -1, on: lua) {
                throw FluxScriptError("compute of derived store '\(name)': \(path) is a \(kind): a state holds plain data")
            }
            let shape = LuaStore.shape(at: -1, on: lua)
            try lua.pcall(arguments: 1, results: 1) // frozen
            let state = lua.ref(at: -1)
            lua.pop()
            let store = LuaStore(name: name, owner: runningOwner, state: state, shape: shape, handlers: [:], waitFor: [], host: self)
            store.derivation = derivation
            register(store)
            storeSpellings[name] = spelling
            do {
                try dispatcher.derive(store, from: stores)
            } catch {
                unregister(store)
                throw error
            }
        }
        pluginRun?.stores.insert(name)
        return 0
    }

    /// The handler that calls `compute` with the states `LuaDerivation.pushSources` pushes.
    private func derivedHandler(_ compute: LuaRef, count: Int) throws -> LuaRef {
        let lua = activeStack
        try lua.ensureSpace(3)
        try lua.load("""
        local compute = ...
        local unpack = table.unpack
        return function(_, states) return compute(unpack(states, 1, states.n)) end
        """, chunkName: "=flux.derived")
        lua.push(compute)
        try lua.pcall(arguments: 1, results: 1)
        return LuaRef(popping: lua)
    }
}
