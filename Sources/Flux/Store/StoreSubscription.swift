/// A cancellable observation of a store's state.
///
/// Cancelling is idempotent, and a subscription is cancelled when it is released — keep it (or add it
/// to a ``SubscriptionBag``) for as long as the observer should hear changes.
///
/// ```swift
/// let subscription = store.subscribe { state in render(state) }
/// subscription.cancel()
/// ```
public final class StoreSubscription: Hashable {
    private var onCancel: (() -> Void)?

    /// A subscription that runs `onCancel` once, when cancelled or released.
    public init(onCancel: @escaping () -> Void) {
        self.onCancel = onCancel
    }

    /// Whether ``cancel()`` has run.
    public var isCancelled: Bool { onCancel == nil }

    /// Stops the observation; later calls do nothing.
    public func cancel() {
        let body = onCancel
        onCancel = nil
        body?()
    }

    /// Keeps this subscription in `bag` until the bag is cancelled or released.
    public func store(in bag: SubscriptionBag) {
        bag.insert(self)
    }

    deinit { cancel() }

    public static func == (lhs: StoreSubscription, rhs: StoreSubscription) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
