import CFluxLua
import CLua
import Flux
import FluxTable

/// The `flux` module's functions. Each checks its arguments and raises a Lua error with a clear
/// message on bad input, changing nothing.
extension FluxHost {
    func installModule() {
        let lua = vm.stack
        resolver = ActionResolver(dispatcher: dispatcher, stack: lua)
        loadStateFunctions(on: lua)
        defineStateProxy()
        defineSubscription()

        function("stores") { host, lua in
            try host.expect(lua, "stores", at: 0)
            let names = host.dispatcher.stores.map(\.name)
            try LuaEncoder().push(names, to: lua)
            return 1
        }
        function("state") { host, lua in
            try host.expect(lua, "state", at: 1)
            let store = try host.store(named: host.name(lua, 1, "state", "store name"))
            // Inside a handler, a store's state is the one this action has made so far: after
            // `wait_for`, the state the awaited store just computed, as Flux's waitFor promises.
            let handling = host.dispatcher.isDispatching
            if let store = store as? LuaStore {
                flux_pushdeepcopy(lua.state)
                lua.push(handling ? store.snapshot() as? LuaRef ?? store.publishedState : store.publishedState)
                try lua.pcall(arguments: 1, results: 1)
            } else {
                let state = handling ? (store as? any TransactionalTarget)?.snapshot() as? any Encodable ?? store.encodableState : store.encodableState
                try LuaEncoder().push(state, to: lua)
            }
            return 1
        }
        function("actions") { host, lua in
            try host.expect(lua, "actions", at: 1)
            let names = lua.isNil(at: 1)
                ? host.dispatcher.registry.names
                : try host.store(named: host.name(lua, 1, "actions", "store name")).actionNames
            try LuaEncoder().push(names, to: lua)
            return 1
        }
        function("dispatch") { host, lua in
            try host.dispatch(lua)
            return 0
        }
        function("subscribe") { host, lua in
            try host.subscribe(lua)
        }
        function("subscriptions") { host, lua in
            try host.expect(lua, "subscriptions", at: 1)
            let name = lua.isNil(at: 1) ? nil : try host.name(lua, 1, "subscriptions", "store or view name")
            let live = host.subscriptions.values
                .filter { name == nil || $0.storeName == name }
                .sorted { $0.number < $1.number }
            lua.pushTable()
            for (index, subscription) in live.enumerated() {
                lua.push(subscription, as: host.subscriptionType)
                lua.rawSet(index + 1, in: -2)
            }
            return 1
        }
        function("store") { host, lua in
            try host.defineStore(lua)
        }
        function("view") { host, lua in
            try host.defineView(lua)
            return 0
        }
        function("views") { host, lua in
            try host.expect(lua, "views", at: 0)
            try LuaEncoder().push(host.views.names, to: lua)
            return 1
        }
        function("model") { host, lua in
            try host.expect(lua, "model", at: 1)
            let model = try host.views.model(of: host.name(lua, 1, "model", "view name"))
            try LuaEncoder().push(model, to: lua)
            return 1
        }
        function("render") { host, lua in
            try host.expect(lua, "render", at: 2)
            var options = host.renderOptions
            options.color = false
            if !lua.isNil(at: 2) {
                guard let width = lua.integer(at: 2), width > 0 else {
                    throw LuaArgumentError(2, function: "render", "width must be a positive integer, got \(lua.type(at: 2).name)")
                }
                options.width = width
            }
            lua.push(try host.render(view: host.name(lua, 1, "render", "view name"), options: options))
            return 1
        }
        function("watch") { host, lua in
            try host.watch(lua)
        }
        function("group") { host, lua in
            try host.expect(lua, "group", at: 2)
            let label = try host.name(lua, 1, "group", "label")
            guard lua.type(at: 2) == .function else {
                throw LuaArgumentError(2, function: "group", "function expected, got \(lua.type(at: 2).name)")
            }
            let body = lua.ref(at: 2)
            // All or nothing: when `body` raises, what it dispatched is rolled back.
            let results = try host.dispatcher.group(label) {
                try lua.call(body, read: { lua, results in results.map { lua.ref(at: $0) } })
            }
            try lua.ensureSpace(Int32(results.count))
            for result in results { lua.push(result) }
            return Int32(results.count)
        }
        function("undo") { host, lua in
            try host.expect(lua, "undo", at: 0)
            try host.refuseWhileRendering("undo or redo")
            lua.push(try host.dispatcher.undo())
            return 1
        }
        function("redo") { host, lua in
            try host.expect(lua, "redo", at: 0)
            try host.refuseWhileRendering("undo or redo")
            lua.push(try host.dispatcher.redo())
            return 1
        }
        lua.top = 0
    }

    /// Adds `flux.name`; `body` runs with the host and the calling thread's stack. The VM may outlive the
    /// host (a finalizer, a VM handed to another host): a call then fails with an error.
    private func function(_ name: String, _ body: @escaping (FluxHost, LuaStack) throws -> Int32) {
        vm.register(name, in: "flux") { [weak self] lua in
            guard let self else { throw FluxHostError.closed }
            let outer = activeStack
            activeStack = lua
            defer { activeStack = outer }
            do {
                return try body(self, lua)
            } catch {
                noteHandlerFailure(error)
                throw error
            }
        }
    }

    /// Keeps the traceback of a Lua store handler that failed: the error reaches the script as a message,
    /// and ``describe(_:)`` shows the handler's own frames next to the caller's.
    private func noteHandlerFailure(_ error: any Error) {
        guard case let .storeFailed(_, _, underlying) = error as? DispatcherError,
              let failure = underlying as? FluxScriptError, let traceback = failure.traceback else { return }
        lastHandlerFailure = (String(describing: error), traceback)
    }

    private func loadStateFunctions(on lua: LuaStack) {
        flux_pushinvoke(lua.state)
        invoke = lua.ref(at: -1)
        flux_pushfreeze(lua.state)
        freeze = lua.ref(at: -1)
        lua.pop(2)
    }

    // MARK: Argument checks

    /// Refuses more than `count` arguments: a mistyped call should not pass silently.
    func expect(_ lua: LuaStack, _ function: String, at count: Int32) throws {
        guard lua.top <= count else {
            throw LuaArgumentError(count + 1, function: function, "no more than \(count) argument\(count == 1 ? "" : "s") expected, got \(lua.top)")
        }
    }

    /// The string argument at `position`, as a ``Name``.
    func name(_ lua: LuaStack, _ position: Int32, _ function: String, _ what: String) throws -> String {
        guard lua.type(at: position) == .string else {
            throw LuaArgumentError(position, function: function, "\(what) expected, got \(lua.type(at: position).name)")
        }
        do {
            return try lua.name(at: position) ?? ""
        } catch {
            throw LuaArgumentError(position, function: function, "\(what): \(error)")
        }
    }

    // MARK: dispatch

    /// `flux.dispatch(name, payload?)` or `flux.dispatch{type = name, …}`.
    private func dispatch(_ lua: LuaStack) throws {
        let action: any Action
        switch lua.type(at: 1) {
        case .string:
            let id = try resolver.resolve(lua, at: 1)
            switch lua.type(at: 2) {
            case .none, .nil:
                try expect(lua, "dispatch", at: 2)
                action = try resolver.action(id)
            case .table:
                try expect(lua, "dispatch", at: 2)
                action = try resolver.action(id, payloadAt: 2, on: lua)
            case let other:
                throw LuaArgumentError(2, function: "dispatch", "payload table expected, got \(other.name)")
            }
        case .table:
            try expect(lua, "dispatch", at: 1)
            guard lua.rawGet("type", from: 1) == .string else {
                throw LuaArgumentError(1, function: "dispatch", "field 'type' must name an action, got \(lua.type(at: -1).name)")
            }
            let id = try resolver.resolve(lua, at: -1)
            lua.pop()
            action = try resolver.action(id, payloadAt: 1, on: lua)
        case let other:
            throw LuaArgumentError(1, function: "dispatch", "action name or table expected, got \(other.name)")
        }
        try refuseWhileRendering("dispatch '\(action.name)'")
        try dispatcher.dispatch(action)
    }

    /// A view provider is a pure function of its store's state: what it would change is refused.
    func refuseWhileRendering(_ what: @autoclosure () -> String) throws {
        guard rendering == 0 else { throw FluxScriptError("cannot \(what()) while a view is being rendered") }
    }

    // MARK: subscribe

    /// `flux.subscribe(store, fn)` → subscription; `fn(state, previous)` now and after every change.
    private func subscribe(_ lua: LuaStack) throws -> Int32 {
        try expect(lua, "subscribe", at: 2)
        let store = try store(named: name(lua, 1, "subscribe", "store name"))
        guard lua.type(at: 2) == .function else {
            throw LuaArgumentError(2, function: "subscribe", "function expected, got \(lua.type(at: 2).name)")
        }
        let function = lua.ref(at: 2)
        let subscription = newSubscription(of: store.name)
        // The subscription is held strongly: the function may cancel it and drop the last Lua reference
        // to it while it runs.
        let deliver: (LuaStack) throws -> Void = { [weak self] lua in
            // [.., state view]
            let state = lua.top
            defer { lua.pop() }
            do {
                try lua.call(function, results: 0, arguments: { lua in
                    lua.pushCopy(of: state)
                    if let previous = subscription.previous { lua.push(previous) } else { lua.pushNil() }
                }, read: { _, _ in })
            } catch {
                self?.report(error, heading: "error in subscriber of '\(subscription.storeName)'",
                             source: "subscriber of '\(subscription.storeName)'", callback: "subscription \(subscription.number)")
            }
            // The state becomes the next call's `previous`, in the same registry slot every time.
            guard !subscription.isCancelled else { return }
            if let previous = subscription.previous { lua.assign(previous, from: state) } else { subscription.previous = lua.ref(at: state) }
        }
        if let store = store as? LuaStore {
            subscription.subscription = store.subscribeTable { [weak self] table in
                guard let self else { return }
                let lua = activeStack
                do {
                    try pushReadOnly(table, on: lua)
                    try deliver(lua)
                } catch {
                    report(error, heading: "error in subscriber of '\(store.name)'",
                           source: "subscriber of '\(store.name)'", callback: "subscription \(subscription.number)")
                }
            }
        } else {
            let name = store.name
            let proxyType = stateProxyType // held by the closure: reading the property copies it
            subscription.subscription = store.subscribeEncodable { [weak self] state in
                guard let self else { return }
                let lua = activeStack
                lua.push(StateProxy(state: state, storeName: name), as: proxyType)
                try? deliver(lua)
            }
        }
        keep(subscription)
        lua.push(subscription, as: subscriptionType)
        return 1
    }

    /// A subscription to `name`, numbered and owned by whoever runs now.
    private func newSubscription(of name: String) -> LuaSubscription {
        let subscription = LuaSubscription(storeName: name)
        subscription.owner = runningOwner
        subscription.number = nextSubscriptionNumber
        nextSubscriptionNumber += 1
        return subscription
    }

    /// Holds `subscription` until it is cancelled.
    private func keep(_ subscription: LuaSubscription) {
        let id = ObjectIdentifier(subscription)
        subscriptions[id] = subscription
        subscription.onCancel = { [weak self] in self?.subscriptions[id] = nil }
    }

    // MARK: store

    /// `flux.store{name = …, state = {…}, on = {[action] = fn, …}, wait_for = {…}}`.
    ///
    /// Defining a store that exists again (a reloaded plugin) replaces its handlers and keeps its state.
    private func defineStore(_ lua: LuaStack) throws -> Int32 {
        try expect(lua, "store", at: 1)
        guard lua.type(at: 1) == .table else {
            throw LuaArgumentError(1, function: "store", "table expected, got \(lua.type(at: 1).name)")
        }
        guard lua.rawGet("name", from: 1) == .string, lua.rawLength(at: -1) > 0 else {
            throw LuaArgumentError(1, function: "store", "field 'name' must be a non-empty string, got \(lua.type(at: -1).name)")
        }
        let name = try self.name(lua, -1, "store", "field 'name'")
        lua.pop()

        var handlers: [String: LuaRef] = [:]
        switch lua.rawGet("on", from: 1) {
        case .table:
            try lua.forEachPair(in: -1) { // [.., on, key, value]
                guard lua.type(at: -2) == .string else {
                    throw LuaArgumentError(1, function: "store", "field 'on' must map action names to functions, found a \(lua.type(at: -2).name) key")
                }
                let action = try self.name(lua, -2, "store", "field 'on'")
                guard handlers[action] == nil else {
                    throw LuaArgumentError(1, function: "store", "field 'on' names action '\(action)' twice (the same text in two Unicode forms)")
                }
                guard lua.type(at: -1) == .function else {
                    throw LuaArgumentError(1, function: "store", "field 'on[\"\(action)\"]' must be a function, got \(lua.type(at: -1).name)")
                }
                handlers[action] = lua.ref(at: -1)
            }
        case .nil: break
        case let other:
            throw LuaArgumentError(1, function: "store", "field 'on' must be a table, got \(other.name)")
        }
        lua.pop()

        var waitFor: [String] = []
        switch lua.rawGet("wait_for", from: 1) {
        case .table:
            waitFor = try lua.decode([String].self, at: -1, root: "wait_for").map(Name.normalized)
        case .nil: break
        case let other:
            throw LuaArgumentError(1, function: "store", "field 'wait_for' must be a list of store names, got \(other.name)")
        }
        lua.pop()

        let payloads = try payloadDeclarations(lua, handlers: handlers)

        // A store defined by a handler would outlive the action if it failed: dispatch is a transaction.
        guard !dispatcher.isDispatching else {
            throw FluxScriptError("cannot define store '\(name)' while an action is being handled")
        }
        if let existing = dispatcher.store(named: name) {
            let owner = (existing as? LuaStore)?.owner ?? .swift
            guard owner == runningOwner, let existing = existing as? LuaStore else {
                throw OwnershipError(kind: "store", name: name, owner: owner)
            }
            existing.handlers = handlers
            existing.waitFor = waitFor
            existing.payloads = payloads
        } else {
            // The initial state: a copy, so the script's table stays its own.
            switch lua.rawGet("state", from: 1) {
            case .table: break
            case .nil:
                lua.pop()
                lua.pushTable()
            case let other:
                throw LuaArgumentError(1, function: "store", "field 'state' must be a table, got \(other.name)")
            }
            lua.push(freeze)                  // the state: frozen, the script's table stays its own
            lua.insertTop(at: -2)
            try lua.pcall(arguments: 1, results: 1)
            let state = lua.ref(at: -1)
            lua.pop()
            let store = LuaStore(name: name, owner: runningOwner, state: state, handlers: handlers, waitFor: waitFor, host: self)
            store.payloads = payloads
            dispatcher.register(store)
        }
        pluginRun?.stores.insert(name)
        for action in handlers.keys where !dispatcher.registry.contains(action) { registerLuaAction(action) }
        // A redefinition may drop actions: their names go when no store handles them.
        forgetUnhandledActions()
        routesChanged()
        return 0
    }

    /// `actions = {[action] = {field = "string", other = "number?"}}`: the payload fields of actions `on` handles.
    private func payloadDeclarations(_ lua: LuaStack, handlers: [String: LuaRef]) throws -> [String: LuaPayloadDeclaration] {
        defer { lua.pop() }
        switch lua.rawGet("actions", from: 1) {
        case .nil: return [:]
        case .table: break
        case let other:
            throw LuaArgumentError(1, function: "store", "field 'actions' must map action names to their payload fields, got \(other.name)")
        }
        let declared = try lua.decode([String: [String: String]].self, at: -1, root: "actions")
        var payloads: [String: LuaPayloadDeclaration] = [:]
        for (action, fields) in declared {
            let action = Name.normalized(action)
            guard handlers[action] != nil else {
                throw LuaArgumentError(1, function: "store", "field 'actions' declares '\(action)', which 'on' does not handle")
            }
            payloads[action] = try LuaPayloadDeclaration(fields, action: action)
        }
        return payloads
    }

    /// Adds a Lua store's action name to the registry: its payload is read as the stores handling it
    /// declare when one does, else as any plain table.
    func registerLuaAction(_ action: String) {
        luaActions.insert(action)
        dispatcher.registry.register(name: action) { [weak self] decoder in
            if let fields = self?.payloadDeclaration(of: action) {
                return LuaAction(name: action, payload: try fields.decode(from: decoder))
            }
            if let decoder = decoder as? LuaValueDecoder { try decoder.checkPlainData() }
            return LuaAction(name: action, payload: try LuaValue(from: decoder))
        }
    }

    /// The payload fields declared for `action` by the first Lua store that declares them.
    func payloadDeclaration(of action: String) -> LuaPayloadDeclaration? {
        for case let store as LuaStore in dispatcher.stores {
            if let fields = store.payloads[action] { return fields }
        }
        return nil
    }

    // MARK: view

    /// `flux.view(name, {store = …, render = function(state) return model end})`.
    private func defineView(_ lua: LuaStack) throws {
        try expect(lua, "view", at: 2)
        let name = try name(lua, 1, "view", "view name")
        guard lua.type(at: 2) == .table else {
            throw LuaArgumentError(2, function: "view", "table expected, got \(lua.type(at: 2).name)")
        }
        guard lua.rawGet("store", from: 2) == .string, let storeName = lua.string(at: -1) else {
            throw LuaArgumentError(2, function: "view", "field 'store' must name a store, got \(lua.type(at: -1).name)")
        }
        lua.pop()
        _ = try store(named: storeName)
        guard lua.rawGet("render", from: 2) == .function else {
            throw LuaArgumentError(2, function: "view", "field 'render' must be a function, got \(lua.type(at: -1).name)")
        }
        let render = lua.ref(at: -1)
        lua.pop()
        try views.register(ViewProvider(name: name, store: storeName) { [weak self] in
            guard let self else { throw FluxHostError.closed }
            let lua = activeStack
            let store = try store(named: storeName)
            rendering += 1
            defer { rendering -= 1 }
            return try lua.call(render, results: 1, arguments: { lua in
                try self.pushState(of: store, on: lua)
            }, read: { lua, results in
                guard lua.type(at: results.lowerBound) == .table else {
                    throw FluxScriptError("view '\(name)': render must return a table, got \(lua.type(at: results.lowerBound).name)")
                }
                return try lua.decode(TableViewModel.self, at: results.lowerBound, root: "model")
            })
        }, owner: runningOwner)
        pluginRun?.views.insert(name)
    }

    // MARK: watch

    /// `flux.watch(view, fn)` → subscription; `fn(diff)` after every change of the view's model, with
    /// `diff.text` the patch and counts of inserted, deleted, updated and moved rows and sections.
    private func watch(_ lua: LuaStack) throws -> Int32 {
        try expect(lua, "watch", at: 2)
        let view = try name(lua, 1, "watch", "view name")
        guard lua.type(at: 2) == .function else {
            throw LuaArgumentError(2, function: "watch", "function expected, got \(lua.type(at: 2).name)")
        }
        let function = lua.ref(at: 2)
        let subscription = newSubscription(of: view)
        var options = renderOptions
        options.color = false
        subscription.subscription = try watch(view: view) { [weak self] changes, old, new in
            guard let self else { return }
            let summary = WatchSummary(changes, text: PatchRenderer(options: options).render(changes, from: old, to: new))
            do {
                try activeStack.call(function, results: 0, arguments: { lua in
                    try LuaEncoder().push(summary, to: lua)
                }, read: { _, _ in })
            } catch {
                report(error, heading: "error in watcher of '\(view)'", source: "watcher of '\(view)'",
                       callback: "subscription \(subscription.number)")
            }
        }
        keep(subscription)
        lua.push(subscription, as: subscriptionType)
        return 1
    }

    // MARK: Object types

    private func defineStateProxy() {
        let wrap: (LuaStack) throws -> Void = { [weak self] in // made once, not per read
            guard let self else { throw FluxHostError.closed }
            try wrapReadOnly($0)
        }
        let reader = StateFieldEncoder(wanted: .position(0), stack: activeStack, wrap: wrap)
        stateProxyType.metamethod(.index) { lua, proxy in
            let wanted: StateFieldEncoder.Wanted
            switch lua.type(at: 2) {
            case .string: wanted = .key(lua.string(at: 2) ?? "")
            case .number:
                guard let position = lua.integer(at: 2) else { lua.pushNil(); return 1 }
                wanted = .position(position)
            default:
                lua.pushNil()
                return 1
            }
            try reader.read(wanted, of: proxy.state, onto: lua)
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

    private func defineSubscription() {
        subscriptionType.method("cancel") { _, subscription in
            subscription.cancel()
            return 0
        }
        subscriptionType.method("active") { lua, subscription in
            lua.push(subscription.isActive)
            return 1
        }
        subscriptionType.metamethod(.close) { _, subscription in
            subscription.cancel()
            return 0
        }
        subscriptionType.metamethod(.toString) { lua, subscription in
            lua.push("flux.subscription(\(subscription.storeName)\(subscription.isActive ? "" : ", cancelled"))")
            return 1
        }
    }
}

/// What a `flux.watch` function receives about one change of a view.
struct WatchSummary: Encodable {
    let text: String
    let inserted: Int
    let deleted: Int
    let updated: Int
    let moved: Int
    let sectionsInserted: Int
    let sectionsDeleted: Int
    let sectionsMoved: Int

    init(_ diff: TableDiff, text: String) {
        self.text = text
        inserted = diff.rowInserts.count
        deleted = diff.rowDeletes.count
        updated = diff.rowUpdates.count
        moved = diff.rowMoves.count
        sectionsInserted = diff.sectionInserts.count
        sectionsDeleted = diff.sectionDeletes.count
        sectionsMoved = diff.sectionMoves.count
    }

    enum CodingKeys: String, CodingKey {
        case text, inserted, deleted, updated, moved
        case sectionsInserted = "sections_inserted", sectionsDeleted = "sections_deleted", sectionsMoved = "sections_moved"
    }
}
