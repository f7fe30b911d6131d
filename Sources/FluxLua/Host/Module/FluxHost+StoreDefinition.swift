import CFluxLua
import Flux

/// `flux.store`: a store whose state is a Lua table and whose handlers are Lua functions (``LuaStore``),
/// and the action names it adds to the registry.
extension FluxHost {
    /// The C functions that keep a Lua store's state frozen: `invoke` runs a handler on a draft of it,
    /// `freeze` makes a script's table a state.
    func loadStateFunctions(on lua: LuaStack) {
        flux_pushinvoke(lua.state)
        invoke = lua.ref(at: -1)
        flux_pushfreeze(lua.state)
        freeze = lua.ref(at: -1)
        lua.pop(2)
    }

    /// The fields `flux.store{…}` reads; any other is refused (a misspelled one would be lost silently).
    static var storeFields: [String] {
        [
            "name",
            "state",
            "on",
            "wait_for",
            "actions",
            "version",
            "migrate",
        ]
    }

    /// `flux.store{name = …, state = {…}, on = {[action] = fn, …}, wait_for = {…}}`.
    ///
    /// Defining a store that exists again (a reloaded plugin) replaces its handlers and keeps its state.
    func defineStore(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        let (name, spelling) = try definedName(arguments, fields: Self.storeFields)

        var handlers: [String: LuaRef] = [:]
        switch lua.rawGet("on", from: 1) {
        case .table:
            try lua.forEachPair(in: -1) { // [.., on, key, value]
                guard lua.type(at: -2) == .string else {
                    throw arguments.error(1, "field 'on' must map action names to functions, found a \(lua.type(at: -2).name) key")
                }
                let action = try arguments.name(at: -2, of: 1, "field 'on'")
                try Name.checkPrintable(action)
                guard handlers[action] == nil else {
                    throw arguments.error(1, "field 'on' names action '\(action)' twice (the same text in two Unicode forms)")
                }
                guard lua.type(at: -1) == .function else {
                    throw arguments.error(1, "field 'on[\"\(action)\"]' must be a function, got \(lua.type(at: -1).name)")
                }
                handlers[action] = lua.ref(at: -1)
            }
        case .nil: break
        case let other:
            throw arguments.error(1, "field 'on' must be a table, got \(other.name)")
        }
        lua.pop()

        var waitFor: [String] = []
        switch lua.rawGet("wait_for", from: 1) {
        case .table:
            waitFor = try lua.decode([String].self, at: -1, root: "wait_for").map(Name.normalized)
        case .nil: break
        case let other:
            throw arguments.error(1, "field 'wait_for' must be a list of store names, got \(other.name)")
        }
        lua.pop()

        let payloads = try payloadDeclarations(arguments, handlers: handlers)
        try checkPayloadDeclarations(payloads, of: name)
        let (version, migrate) = try stateVersion(arguments)

        // A store defined by a handler would outlive the action if it failed: dispatch is a transaction.
        guard !dispatcher.isDispatching else {
            throw FluxScriptError("cannot define store '\(name)' while an action is being handled")
        }
        if let existing = dispatcher.store(named: name) {
            let owner = (existing as? LuaStore)?.owner ?? .swift
            guard owner == runningOwner, let existing = existing as? LuaStore else {
                throw OwnershipError(kind: "store", name: name, owner: owner)
            }
            guard existing.derivation == nil else {
                throw FluxScriptError("store '\(name)' is defined already by flux.derived: a store with handlers needs a name of its own")
            }
            try checkSpelling(spelling, ofStore: name)
            existing.handlers = handlers
            existing.waitFor = waitFor
            existing.payloads = payloads
            existing.version = version
            existing.migrate = migrate
        } else {
            // The initial state: a copy, so the script's table stays its own.
            switch lua.rawGet("state", from: 1) {
            case .table: break
            case .nil:
                lua.pop()
                lua.pushTable()
            case let other:
                throw arguments.error(1, "field 'state' must be a table, got \(other.name)")
            }
            if let (path, kind) = PlainStateCheck.firstOpaqueValue(inTableAt: -1, on: lua) {
                throw arguments.error(1, "\(path) is a \(kind): a state holds plain data (tables, strings, numbers, booleans); to start from another store's state, copy it with flux.state(name)")
            }
            try lua.ensureSpace(2)
            let shape = LuaStore.shape(at: -1, on: lua)
            lua.push(freeze)                  // the state: frozen, the script's table stays its own
            lua.insertTop(at: -2)
            try lua.pcall(arguments: 1, results: 1)
            let state = lua.ref(at: -1)
            lua.pop()
            let store = LuaStore(name: name, owner: runningOwner, state: state, shape: shape, handlers: handlers, waitFor: waitFor, host: self)
            store.payloads = payloads
            store.version = version
            store.migrate = migrate
            register(store)
            storeSpellings[name] = spelling
        }
        pluginRun?.stores.insert(name)
        for action in handlers.keys where !dispatcher.registry.contains(action) { registerLuaAction(action) }
        // A redefinition may drop actions: their names go when no store handles them. The routes
        // followed the handlers (`LuaStore.handlers`); what the resolver prepared may name dropped actions.
        forgetUnhandledActions()
        resolver.registryChanged()
        return 0
    }

    /// The `name` of the table a store definition takes (its only argument), and its bytes as spelled,
    /// once the table's fields are checked against `fields` (any other is refused).
    func definedName(_ arguments: LuaArguments, fields: [String]) throws -> (name: String, spelling: [UInt8]) {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        try arguments.expect(.table, at: 1)
        guard lua.rawGet("name", from: 1) == .string, lua.rawLength(at: -1) > 0 else {
            throw arguments.error(1, "field 'name' must be a non-empty string, got \(lua.type(at: -1).name)")
        }
        try arguments.rejectUnknownKeys(at: 1, allowed: fields)
        let name = try arguments.name(at: -1, of: 1, "field 'name'")
        let spelling = lua.withBytes(at: -1) { Array($0) } ?? []
        try Name.checkPrintable(name)
        lua.pop()
        return (name, spelling)
    }

    /// `version = 2, migrate = function(old_state, old_version) … end`: the version of the state's shape,
    /// and how a state saved in another converts (`LuaStore+Migration.swift`).
    private func stateVersion(_ arguments: LuaArguments) throws -> (version: Int?, migrate: LuaRef?) {
        let lua = arguments.stack
        var version: Int?
        switch lua.rawGet("version", from: 1) {
        case .nil: break
        case .number where lua.isInteger(at: -1) && (lua.integer(at: -1) ?? -1) >= 0: version = lua.integer(at: -1)
        case let other:
            lua.pop()
            throw arguments.error(1, "field 'version' must be an integer from 0, got \(other == .number ? "another number" : other.name)")
        }
        lua.pop()
        var migrate: LuaRef?
        switch lua.rawGet("migrate", from: 1) {
        case .nil: break
        case .function: migrate = lua.ref(at: -1)
        case let other:
            lua.pop()
            throw arguments.error(1, "field 'migrate' must be a function(old_state, old_version), got \(other.name)")
        }
        lua.pop()
        return (version, migrate)
    }

    /// `actions = {[action] = {field = "string", other = "number?"}}`: the payload fields of actions `on` handles.
    private func payloadDeclarations(_ arguments: LuaArguments, handlers: [String: LuaRef]) throws -> [String: LuaPayloadDeclaration] {
        let lua = arguments.stack
        defer { lua.pop() }
        switch lua.rawGet("actions", from: 1) {
        case .nil: return [:]
        case .table: break
        case let other:
            throw arguments.error(1, "field 'actions' must map action names to their payload fields, got \(other.name)")
        }
        let declared = try lua.decode([String: [String: String]].self, at: -1, root: "actions")
        var payloads: [String: LuaPayloadDeclaration] = [:]
        for (action, fields) in declared {
            let action = Name.normalized(action)
            guard handlers[action] != nil else {
                throw arguments.error(1, "field 'actions' declares '\(action)', which 'on' does not handle")
            }
            payloads[action] = try LuaPayloadDeclaration(fields, action: action)
        }
        return payloads
    }

    /// Adds a Lua store's action name to the registry: its payload is read as the stores handling it
    /// declare when one does, else as any plain table.
    func registerLuaAction(_ action: String) {
        luaActions.insert(action)
        dispatcher.registry.register(name: action) { [reference] decoder in
            if let fields = reference.host?.payloadDeclaration(of: action) {
                return LuaAction(name: action, payload: try fields.decode(from: decoder))
            }
            if let decoder = decoder as? LuaValueDecoder { try decoder.checkPlainData() }
            return LuaAction(name: action, payload: try LuaValue(from: decoder))
        }
    }

    /// The payload fields declared for `action`: by the store it is named after (`bank` for
    /// `bank.deposit`) when that store declares them, else by the first Lua store that does.
    func payloadDeclaration(of action: String) -> LuaPayloadDeclaration? {
        let declarations = actionIndex.declarations(of: action)
        // Every store declaring it declares it the same way (`checkPayloadDeclarations`).
        return declarations[Self.storeName(ofAction: action)] ?? declarations.values.first
    }
}
