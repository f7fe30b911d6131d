/// The single source of truth for one part of an app: a value-type `State` that changes only through
/// actions, observed read-only by views.
///
/// A store declares one handler per action it handles; a handler receives the state to change and the
/// typed action, and may throw to refuse it (the dispatch then changes nothing anywhere). Observers
/// ``subscribe(_:)`` and hear the current state at once, then every change — after every store has
/// handled the action. When `State` is `Equatable`, an equal state is not sent again.
///
/// ```swift
/// final class CounterStore: Store<Int> {
///     init(dispatcher: Dispatcher) {
///         super.init(name: "counter", state: 0, dispatcher: dispatcher)
///         on(Increment.self) { count, action in count += action.by }
///     }
/// }
/// ```
open class Store<State: Encodable>: StoreProtocol {
    public typealias Handler<A> = (inout State, A) throws -> Void

    /// The store's name, used by the shell, by scripts and in messages.
    public let name: String
    /// The dispatcher this store is registered with.
    public let dispatcher: Dispatcher
    /// The token to pass to ``Dispatcher/waitFor(_:)`` to run this store first.
    public private(set) var token: DispatchToken!

    /// The state now. Inside a dispatch it already holds this action's changes; observers hear them
    /// once every store has handled the action.
    public private(set) var state: State

    private var published: State
    private let isEqual: ((State, State) -> Bool)?
    private var handlers: [String: Handler<any Action>] = [:]
    private var everyAction: Handler<any Action>?
    private var observers: [Observer] = []

    private final class Observer {
        let send: (State) -> Void
        var isActive = true
        init(_ send: @escaping (State) -> Void) { self.send = send }
    }

    /// A store named `name` holding `state`, registered with `dispatcher`.
    public init(name: String, state: State, dispatcher: Dispatcher) {
        self.name = name
        self.state = state
        self.published = state
        self.dispatcher = dispatcher
        self.isEqual = nil
        self.token = dispatcher.register(self)
    }

    /// A store whose observers do not hear a state equal to the last one again.
    public init(name: String, state: State, dispatcher: Dispatcher) where State: Equatable {
        self.name = name
        self.state = state
        self.published = state
        self.dispatcher = dispatcher
        self.isEqual = { $0 == $1 }
        self.token = dispatcher.register(self)
    }

    // MARK: Handlers

    /// Handles actions of type `A`: `handler` changes the state it is given, or throws to refuse.
    ///
    /// The action type is registered with the dispatcher's registry so it can be dispatched by name.
    public func on<A: Action>(_ type: A.Type, _ handler: @escaping Handler<A>) {
        handlers[A.name] = { state, action in
            guard let action = action as? A else {
                throw ActionError.invalidPayload(action: A.name, message: "expected \(A.self), got \(Swift.type(of: action))")
            }
            try handler(&state, action)
        }
        dispatcher.registry.register(A.self)
        dispatcher.routesChanged()
    }

    /// Sees every action dispatched, after any handler for its type: for stores derived from others,
    /// which call ``Dispatcher/waitFor(_:)`` and recompute.
    public func onEveryAction(_ handler: @escaping Handler<any Action>) {
        everyAction = handler
        dispatcher.routesChanged()
    }

    // MARK: Observing

    /// Calls `observer` with the state now and after every change until the subscription is cancelled.
    public func subscribe(_ observer: @escaping (State) -> Void) -> StoreSubscription {
        let entry = Observer(observer)
        observers.append(entry)
        observer(published)
        return StoreSubscription { [weak self, weak entry] in
            guard let entry else { return }
            entry.isActive = false
            self?.observers.removeAll { $0 === entry }
        }
    }

    /// How many observers are subscribed.
    public var subscriberCount: Int { observers.count }

    // MARK: StoreProtocol

    public var actionNames: [String] { handlers.keys.sorted() }
    public var handlesEveryAction: Bool { everyAction != nil }
    public var encodableState: any Encodable { published }

    public func subscribeEncodable(_ observer: @escaping (any Encodable) -> Void) -> StoreSubscription {
        subscribe { observer($0) }
    }

    public func handles(_ actionName: String) -> Bool {
        everyAction != nil || handlers[actionName] != nil
    }

    public func handle(_ action: any Action, in dispatcher: Dispatcher) throws {
        var next = state
        if let handler = handlers[action.name] { try handler(&next, action) }
        if let everyAction { try everyAction(&next, action) }
        state = next
    }

    public func snapshot() -> Any { state }

    public func restore(_ snapshot: Any) {
        if let snapshot = snapshot as? State { state = snapshot }
    }

    public func isUnchanged(since snapshot: Any) -> Bool {
        guard let isEqual, let snapshot = snapshot as? State else { return false }
        return isEqual(state, snapshot)
    }

    public func publish() {
        if let isEqual, isEqual(published, state) { return }
        published = state
        let current = state
        for observer in observers where observer.isActive {
            observer.send(current)
        }
    }
}
