import Flux

/// What `flux.subscribe` and `flux.watch` return: `sub:cancel()`, and a Lua 5.4 to-be-closed value
/// (`local sub <close> = flux.subscribe(…)`). Cancelling twice is harmless.
final class LuaSubscription {
    let storeName: String
    var subscription: StoreSubscription?
    /// The state the function heard last, handed to it next time as `previous`.
    var previous: LuaRef?

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
        previous = nil
    }
}
