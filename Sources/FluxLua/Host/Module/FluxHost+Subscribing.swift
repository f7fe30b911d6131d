import Flux

/// `flux.subscribe` and `flux.subscriptions`, and `flux.subscription`, the object type of what
/// `flux.subscribe` and `flux.watch` return.
extension FluxHost {
    /// `flux.subscribe(store, fn)` → subscription; `fn(state, previous)` now and after every change.
    func subscribe(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        let store = try store(named: arguments.name(1, "store name"))
        let function = try arguments.function(2)
        let subscription = newSubscription(of: store.name)
        let subscribers = subscribers(of: store)
        let pair = subscribers.add(subscription, function: function, on: lua)
        if let store = store as? LuaStore {
            tell(subscribers, from: pair, to: pair, on: lua) { store.pushView(of: store.publishedState, onPrepared: $0) }
        } else {
            let state = store.encodableState
            let proxies = stateProxies
            tell(subscribers, from: pair, to: pair, on: lua) { proxies.push(state, of: store.name, keepingMetatable: true, on: $0) }
        }
        keep(subscription)
        noteMadeDuringDispatch(subscription)
        lua.push(subscription, as: subscriptionType)
        return 1
    }

    /// The Lua subscribers of `store`, observing it from their first.
    ///
    /// Plain references only: the store's observer holds the list (strongly) until the list empties or
    /// the host goes, a call running on the list holds it while it runs, and the host is reached through
    /// its `reference`, which reads nil once the host is going. A subscriber may cancel, subscribe or
    /// collect anything while it is told: nothing here outlives what it uses.
    private func subscribers(of store: any StoreProtocol) -> LuaSubscribers {
        let id = ObjectIdentifier(store)
        if let subscribers = storeSubscribers[id] { return subscribers }
        let subscribers = LuaSubscribers(storeName: store.name, on: activeStack)
        storeSubscribers[id] = subscribers
        let reference = self.reference
        subscribers.onEmpty = { emptied in
            guard let host = reference.host, host.storeSubscribers[id] === emptied else { return }
            host.storeSubscribers[id] = nil
        }
        if let store = store as? LuaStore {
            // The store held, not weakly: only the store calls this, and it holds the observer until the
            // observer is cancelled, as the list's cancelling `observer` holds the store (a weak reference
            // would give the store a side table, and make every retain and release of it slow).
            subscribers.observer = store.subscribeTable { table in
                guard subscribers.isListening, let host = reference.host else { return } // the first call is the subscriber's own
                host.tell(subscribers, on: host.activeStack) { store.pushView(of: table, onPrepared: $0) }
            }
        } else {
            // The state's type is the store's: its field readers are looked up once, not per change.
            let fields = stateProxies.fields(of: store.encodableState, on: activeStack)
            subscribers.observer = store.subscribeEncodable { state in
                guard subscribers.isListening, let host = reference.host else { return }
                let proxies = host.stateProxies
                host.tell(subscribers, on: host.activeStack) {
                    proxies.push(state, of: subscribers.storeName, fields: fields, keepingMetatable: true, on: $0)
                }
            }
        }
        subscribers.isListening = true
        return subscribers
    }

    /// Calls the members `from` to `to` of `subscribers` (all of them by default) with the view of a state
    /// `pushView` pushes (onto a stack `prepare` left room on), reporting each error. Inlined: a closure-specialized copy of it would retain
    /// what the closure captures (the store and its state) on every change.
    @inline(__always)
    private func tell(_ subscribers: LuaSubscribers, from: Int = 1, to: Int? = nil, on lua: LuaStack,
                      view pushView: (LuaStack) throws -> Void) {
        let base = lua.top
        do {
            try subscribers.prepare(on: lua)
            try pushView(lua)
        } catch {
            lua.top = base
            let name = subscribers.storeName
            return report(error, heading: "error in subscriber of '\(name)'", source: "subscriber of '\(name)'",
                          callback: "subscribers of '\(name)'")
        }
        subscribers.tell(from: from, to: to, above: base, on: lua) { error, member in
            let name = subscribers.storeName
            report(error, heading: "error in subscriber of '\(name)'", source: "subscriber of '\(name)'",
                   callback: "subscription \(member.number)")
        }
    }

    /// `flux.subscriptions(name?)` → the live subscriptions (to the store or view `name`), oldest first.
    func listSubscriptions(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        let name = lua.isNil(at: 1) ? nil : try arguments.name(1, "store or view name")
        let live = subscriptions.values
            .filter { name == nil || $0.storeName == name }
            .filter { runningOwner == .session || $0.owner == runningOwner } // a plugin sees (and can cancel) its own
            .sorted { $0.number < $1.number }
        lua.pushTable()
        for (index, subscription) in live.enumerated() {
            lua.push(subscription, as: subscriptionType)
            lua.rawSet(index + 1, in: -2)
        }
        return 1
    }

    /// A subscription to `name`, numbered and owned by whoever runs now.
    func newSubscription(of name: String) -> LuaSubscription {
        let subscription = LuaSubscription(storeName: name)
        subscription.owner = runningOwner
        subscription.number = nextSubscriptionNumber
        nextSubscriptionNumber += 1
        return subscription
    }

    /// Holds `subscription` until it is cancelled.
    func keep(_ subscription: LuaSubscription) {
        let id = ObjectIdentifier(subscription)
        subscriptions[id] = subscription
        subscription.onCancel = { [reference] in reference.host?.subscriptions[id] = nil }
    }

    // MARK: The subscription object

    /// Fills `subscriptionType`: `cancel`, `active`, and cancelling at the end of a `<close>` scope.
    func defineSubscription() {
        subscriptionType.method("cancel") { [reference] _, subscription in
            if let host = reference.host { host.cancelFromScript(subscription) } else { subscription.cancel() }
            return 0
        }
        subscriptionType.method("active") { lua, subscription in
            lua.push(subscription.isActive)
            return 1
        }
        subscriptionType.metamethod(.close) { [reference] _, subscription in
            if let host = reference.host { host.cancelFromScript(subscription) } else { subscription.cancel() }
            return 0
        }
        subscriptionType.metamethod(.toString) { lua, subscription in
            lua.push("flux.subscription(\(subscription.storeName)\(subscription.isActive ? "" : ", cancelled"))")
            return 1
        }
    }
}
