import Flux

/// Records every state a store's subscribers hear, as a view would see them.
final class StateRecorder<State> {
    private(set) var states: [State] = []
    // Held only to keep the observation alive for the recorder's lifetime.
    private var subscription: AnyObject?

    init(_ store: Store<State>) where State: Encodable {
        subscription = store.subscribe { [unowned self] in self.states.append($0) }
    }

    /// The state heard last.
    var last: State { states[states.count - 1] }

    /// How many states were heard after the one at subscription.
    var changes: Int { states.count - 1 }
}
