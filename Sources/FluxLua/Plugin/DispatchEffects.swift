/// What Lua handlers did during one dispatch besides changing states: views they defined, subscriptions
/// they made and subscriptions they cancelled. A dispatch is a transaction: when it fails, these go
/// with it; when it succeeds, the cancellations take effect before anyone hears the change.
///
/// Kept only once a handler does such a thing: the Lua stores of the host are marked
/// (``LuaStore/hasDispatchEffects``), and the first of them to commit or roll back ends the journal.
final class DispatchEffects {
    /// Undoes what was done, newest last.
    var undo: [() -> Void] = []
    /// Cancellations of subscriptions older than the dispatch, made when it succeeds.
    var cancels: [LuaSubscription] = []
    /// The subscriptions the dispatch made.
    var made: Set<ObjectIdentifier> = []
}

extension FluxHost {
    /// The journal of the dispatch running now, begun when first needed.
    private func dispatchJournal() -> DispatchEffects {
        if let effects = dispatchEffects { return effects }
        let effects = DispatchEffects()
        dispatchEffects = effects
        for store in dispatcher.stores { (store as? LuaStore)?.hasDispatchEffects = true }
        return effects
    }

    /// Keeps `undo` to run if the action being dispatched fails (nothing when none is).
    func noteDispatchEffect(_ undo: @escaping () -> Void) {
        guard dispatcher.isDispatching else { return }
        dispatchJournal().undo.append(undo)
    }

    /// A subscription made now: when a handler made it, it ends if the dispatch fails.
    func noteMadeDuringDispatch(_ subscription: LuaSubscription) {
        guard dispatcher.isDispatching else { return }
        let effects = dispatchJournal()
        effects.made.insert(ObjectIdentifier(subscription))
        effects.undo.append { [weak subscription] in subscription?.cancel() }
    }

    /// `sub:cancel()` or the end of its `<close>` scope: by a handler, it takes effect when the dispatch
    /// succeeds; by a plugin's file as it loads, when the load succeeds. Else at once.
    func cancelFromScript(_ subscription: LuaSubscription) {
        guard subscription.isActive else { return subscription.cancel() }
        if dispatcher.isDispatching {
            let effects = dispatchJournal()
            if !effects.made.contains(ObjectIdentifier(subscription)) { return effects.cancels.append(subscription) }
        } else if pluginRun != nil, let first = pluginRun?.firstSubscription, subscription.number < first {
            pluginRun?.cancels.append(subscription)
            return
        }
        subscription.cancel()
    }

    /// The dispatch ended: `kept` when it succeeded.
    func endDispatchEffects(kept: Bool) {
        guard let effects = dispatchEffects else { return }
        dispatchEffects = nil
        for store in dispatcher.stores { (store as? LuaStore)?.hasDispatchEffects = false }
        if kept {
            for subscription in effects.cancels { subscription.cancel() }
        } else {
            for undo in effects.undo.reversed() { undo() }
        }
    }
}
