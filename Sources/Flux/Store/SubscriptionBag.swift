/// Holds many subscriptions and cancels them together, like ReactiveSwift's `CompositeDisposable`.
///
/// ```swift
/// let bag = SubscriptionBag()
/// bag += store.subscribe { tableView.model = provider.model(for: $0) }
/// bag += store.subscribe { clearButton.isEnabled = $0.isFiltering }
/// bag.cancel()
/// ```
public final class SubscriptionBag {
    private var subscriptions: [StoreSubscription] = []

    /// An empty bag.
    public init() {}

    /// How many subscriptions the bag holds.
    public var count: Int { subscriptions.count }

    /// Adds a subscription.
    public func insert(_ subscription: StoreSubscription) {
        subscriptions.append(subscription)
    }

    /// Cancels every subscription and empties the bag.
    public func cancel() {
        let all = subscriptions
        subscriptions.removeAll()
        for subscription in all { subscription.cancel() }
    }

    /// Adds a subscription: `bag += store.subscribe { … }`.
    public static func += (bag: SubscriptionBag, subscription: StoreSubscription) {
        bag.insert(subscription)
    }

    deinit { cancel() }
}
