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
                    try store.pushView(of: table, on: lua)
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

    /// `flux.subscriptions(name?)` → the live subscriptions (to the store or view `name`), oldest first.
    func listSubscriptions(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        let name = lua.isNil(at: 1) ? nil : try arguments.name(1, "store or view name")
        let live = subscriptions.values
            .filter { name == nil || $0.storeName == name }
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
        subscription.onCancel = { [weak self] in self?.subscriptions[id] = nil }
    }

    // MARK: The subscription object

    /// Fills `subscriptionType`: `cancel`, `active`, and cancelling at the end of a `<close>` scope.
    func defineSubscription() {
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
