import Flux
import FluxViews

/// One run of a plugin's file, a transaction: the names it defines, and what the plugin owned before it,
/// to replace when the run succeeds or to put back when it fails.
struct PluginRun {
    /// The stores and views the run has defined so far.
    var stores: Set<String> = []
    var views: Set<String> = []
    /// The number of the first subscription made during the run: the older ones' cancellations wait
    /// for the run to succeed.
    var firstSubscription = Int.max
    /// Cancellations of older subscriptions the run made, made when it succeeds.
    var cancels: [LuaSubscription] = []

    /// What an owner had registered before a run of its file.
    struct Snapshot {
        let owner: Owner
        let stores: [(store: LuaStore, handlers: [String: LuaRef], waitFor: [String], payloads: [String: LuaPayloadDeclaration])]
        let views: [ViewProvider]
        let subscriptions: Set<ObjectIdentifier>
        let actions: Set<String>

        init(of owner: Owner, in host: FluxHost) {
            self.owner = owner
            stores = host.luaStores(ownedBy: owner).map { ($0, $0.handlers, $0.waitFor, $0.payloads) }
            views = host.viewOwners.names(ownedBy: owner).compactMap { host.views.provider(named: $0) }
            subscriptions = Set(host.subscriptions.values.filter { $0.owner == owner }.map(ObjectIdentifier.init))
            actions = host.luaActions
        }

        /// Puts back what the owner had: drops what the failed run added, gives redefined stores their
        /// handlers back, cancels the subscriptions it made.
        func restore(in host: FluxHost) {
            let kept = Set(stores.map { ObjectIdentifier($0.store) })
            for store in host.luaStores(ownedBy: owner) where !kept.contains(ObjectIdentifier(store)) {
                host.unregister(store)
            }
            for saved in stores {
                saved.store.handlers = saved.handlers
                saved.store.waitFor = saved.waitFor
                saved.store.payloads = saved.payloads
            }
            // A view the owner had is put back in place (its watches follow it back), not removed first.
            let keptViews = Set(views.map(\.name))
            for name in host.viewOwners.names(ownedBy: owner) where !keptViews.contains(name) { host.viewOwners.unregister(named: name) }
            for view in views { try? host.viewOwners.register(view, owner: owner) }
            for subscription in host.subscriptions.values
            where subscription.owner == owner && !subscriptions.contains(ObjectIdentifier(subscription)) {
                subscription.cancel()
            }
            for name in host.luaActions.subtracting(actions) { host.dispatcher.registry.unregister(name: name) }
            host.luaActions = host.luaActions.intersection(actions)
            for name in actions.subtracting(host.luaActions) { host.registerLuaAction(name) }
            host.routesChanged()
        }
    }

    /// The run succeeded: what the owner had and the run did not define again goes, and the subscriptions
    /// of the last run end.
    func replace(_ before: Snapshot, in host: FluxHost) {
        for subscription in cancels { subscription.cancel() }
        for saved in before.stores where !stores.contains(saved.store.name) { host.unregister(saved.store) }
        for view in before.views where !views.contains(view.name) { host.viewOwners.unregister(named: view.name) }
        for subscription in host.subscriptions.values where before.subscriptions.contains(ObjectIdentifier(subscription)) {
            subscription.cancel()
        }
        host.forgetUnhandledActions()
        host.routesChanged()
    }
}

extension FluxHost {
    /// What `owner` has registered: store, view and action names, and how many subscriptions.
    public func owned(by owner: Owner) -> (stores: [String], views: [String], actions: [String], subscriptions: Int) {
        let stores = luaStores(ownedBy: owner)
        return (stores.map(\.name), viewOwners.names(ownedBy: owner), Set(stores.flatMap(\.actionNames)).sorted(),
                subscriptions.values.filter { $0.owner == owner }.count)
    }

    /// The Lua stores `owner` defined, in registration order.
    func luaStores(ownedBy owner: Owner) -> [LuaStore] {
        dispatcher.stores.compactMap { $0 as? LuaStore }.filter { $0.owner == owner }
    }

    /// Takes a Lua store out of dispatch.
    func unregister(_ store: LuaStore) {
        if let token = dispatcher.token(named: store.name) { try? dispatcher.unregister(token) }
        forgetIndex(of: store)
        storeSpellings[store.name] = nil
        // Its subscriptions end: they will hear nothing more.
        for subscription in subscriptions.values where !subscription.isWatch && subscription.storeName == store.name {
            subscription.cancel()
        }
    }

    /// Removes the action names Lua stores added that no store handles any more: dispatching one is
    /// `unknown action` (a store that sees every action does not keep a name).
    /// Costs O(the actions that lost a handler), read from the ``LuaActionIndex``.
    func forgetUnhandledActions() {
        for name in actionIndex.takeUnhandled() where luaActions.contains(name) {
            dispatcher.registry.unregister(name: name)
            luaActions.remove(name)
        }
    }

    /// Tells the dispatcher and the action resolver that handlers or action names changed.
    func routesChanged() {
        dispatcher.routesChanged()
        resolver.registryChanged()
    }
}
