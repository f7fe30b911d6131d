import OpenCombine

extension Store {
    /// The state as an OpenCombine publisher: the state now, then every change — for Combine's operators
    /// (`map`, `compactMap`, `prefix(1)`; the seed's `map`, `ignoreNil`, `take(1)`).
    ///
    /// ```swift
    /// store.statePublisher.map(\.isFiltering).sink { clearButton.isEnabled = $0 }.store(in: &cancellables)
    /// ```
    ///
    /// ``subscribe(_:)`` stays the fast path; this adapter costs a subject per subscriber.
    public var statePublisher: AnyPublisher<State, Never> {
        StatePublisher(store: self).eraseToAnyPublisher()
    }
}

/// Subscribes to a store when a Combine subscriber attaches, and cancels when it goes.
struct StatePublisher<State: Encodable>: Publisher {
    typealias Output = State
    typealias Failure = Never

    let store: Store<State>

    func receive<S: Subscriber>(subscriber: S) where S.Input == State, S.Failure == Never {
        let subject = PassthroughSubject<State, Never>()
        let holder = SubscriptionHolder()
        subject
            .handleEvents(receiveCancel: { holder.subscription?.cancel() })
            .receive(subscriber: subscriber)
        holder.subscription = store.subscribe { subject.send($0) }
    }

    /// Keeps the store subscription alive for as long as the Combine subscription.
    final class SubscriptionHolder {
        var subscription: StoreSubscription?
    }
}
