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

    func cancel() {
        subscription?.cancel()
        subscription = nil
        previous = nil
    }
}
