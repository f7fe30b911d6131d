/// Which registered Lua stores handle each action and which declare its payload, kept as stores are
/// defined, redefined and unregistered: defining a store costs O(the actions it names), where asking
/// every store about every action made defining n stores cost O(n²) and more.
struct LuaActionIndex {
    /// How many registered Lua stores handle each action.
    private var handlerCounts: [String: Int] = [:]
    /// Each action's payload declarations, by the name of the store declaring it.
    private var declarations: [String: [String: LuaPayloadDeclaration]] = [:]
    /// Actions whose last handler went since ``takeUnhandled()`` was last called.
    private var maybeUnhandled: Set<String> = []

    /// Whether a registered Lua store handles `action`.
    func isHandled(_ action: String) -> Bool { handlerCounts[action] != nil }

    /// The declarations of `action`'s payload, by declaring store.
    func declarations(of action: String) -> [String: LuaPayloadDeclaration] { declarations[action] ?? [:] }

    /// `store` handles `added` and no longer `removed`.
    mutating func handlersChanged(added: some Sequence<String>, removed: some Sequence<String>) {
        for action in added { handlerCounts[action, default: 0] += 1 }
        for action in removed {
            guard let count = handlerCounts[action] else { continue }
            if count > 1 {
                handlerCounts[action] = count - 1
            } else {
                handlerCounts[action] = nil
                maybeUnhandled.insert(action)
            }
        }
    }

    /// The store `name` declares `added` (replacing what it declared) and no longer declares `removed`.
    mutating func payloadsChanged(of name: String, added: [String: LuaPayloadDeclaration], removed: some Sequence<String>) {
        for action in removed {
            declarations[action]?[name] = nil
            if declarations[action]?.isEmpty == true { declarations[action] = nil }
        }
        for (action, fields) in added { declarations[action, default: [:]][name] = fields }
    }

    /// The actions that lost their last handler since the last call and have none now.
    mutating func takeUnhandled() -> [String] {
        defer { maybeUnhandled.removeAll() }
        return maybeUnhandled.filter { handlerCounts[$0] == nil }
    }
}

extension LuaStore {
    /// Keeps the host's ``LuaActionIndex`` in step with a change of a registered store's handlers.
    func noteHandlers(from old: [String: LuaRef]) {
        guard isRegistered, let host else { return }
        let added = handlers.keys.filter { old[$0] == nil }, removed = old.keys.filter { handlers[$0] == nil }
        host.actionIndex.handlersChanged(added: added, removed: removed)
        host.dispatcher.routesChanged(for: self, names: added + removed)
    }

    /// Keeps the host's ``LuaActionIndex`` in step with a change of a registered store's payload declarations.
    func notePayloads(from old: [String: LuaPayloadDeclaration]) {
        guard isRegistered, let host else { return }
        host.actionIndex.payloadsChanged(of: name, added: payloads, removed: old.keys.filter { payloads[$0] == nil })
    }
}

extension FluxHost {
    /// Puts a Lua store into dispatch, and its actions and payloads into the index.
    func register(_ store: LuaStore) {
        dispatcher.register(store)
        store.isRegistered = true
        actionIndex.handlersChanged(added: store.handlers.keys, removed: EmptyCollection())
        actionIndex.payloadsChanged(of: store.name, added: store.payloads, removed: EmptyCollection())
    }

    /// Takes a Lua store's actions and payloads out of the index (the store leaving dispatch).
    func forgetIndex(of store: LuaStore) {
        guard store.isRegistered else { return }
        store.isRegistered = false
        actionIndex.handlersChanged(added: EmptyCollection(), removed: store.handlers.keys)
        actionIndex.payloadsChanged(of: store.name, added: [:], removed: store.payloads.keys)
    }
}
