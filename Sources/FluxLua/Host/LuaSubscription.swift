import Flux

/// What `flux.subscribe` and `flux.watch` return: `sub:cancel()`, and a Lua 5.4 to-be-closed value
/// (`local sub <close> = flux.subscribe(…)`). Cancelling twice is harmless.
///
/// The host keeps every subscription until it is cancelled, so one a script does not keep goes on
/// hearing changes (it is not cancelled whenever the garbage collector happens to run).
final class LuaSubscription {
    let storeName: String
    var subscription: StoreSubscription?
    /// Who made it: a successful reload of its plugin cancels it.
    var owner = Owner.session
    /// Whether it watches a view (`flux.watch`) rather than a store.
    var isWatch = false
    /// Its place in the order subscriptions were made.
    var number = 0
    /// Run once by ``cancel()``: the host lets go of it.
    var onCancel: (() -> Void)?
    /// Its place among the subscribers of its store (``LuaSubscribers``), from 1; 0 once cancelled.
    var pair = 0

    init(storeName: String) {
        self.storeName = storeName
    }

    var isActive: Bool { subscription != nil }
    /// Whether ``cancel()`` has run (a subscription is not active yet while it hears its first state).
    private(set) var isCancelled = false

    func cancel() {
        isCancelled = true
        subscription?.cancel()
        subscription = nil
        let release = onCancel
        onCancel = nil
        release?()
    }
}
