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
open class Store<State: Encodable>: StoreProtocol, StoreLaneProviding {
    /// Changes the state for one action, or throws to refuse it.
    public typealias Handler<A> = (inout State, A) throws -> Void

    /// The store's name, used by the shell, by scripts and in messages.
    public let name: String
    /// The dispatcher this store is registered with. The dispatcher owns its stores (it holds them for
    /// as long as they are registered), so the store does not keep it alive: keep the dispatcher.
    public unowned let dispatcher: Dispatcher
    /// The token to pass to ``Dispatcher/waitFor(_:)`` to run this store first.
    public var token: DispatchToken { registration }
    @usableFromInline final var registration: DispatchToken!

    /// The state now. Inside a dispatch it already holds this action's changes; observers hear them
    /// once every store has handled the action.
    public var state: State { current }

    // Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"). Invariant: a store is used
    // from one thread, and no access to the unchecked properties below spans a call out (a handler runs
    // on a local copy, `next`), so their dynamic exclusivity checks — emitted in every module that
    // specialises this inlinable code — are left out; `dispatcher` is unowned (checked: a store used
    // after its dispatcher went traps) because the dispatcher owns its stores. Broken, the torture
    // specs `LuaTortureSpec` and the corpus under FLUX_GC_TORTURE=1 (scripts/torture) fail.
    // The hot path (handle, publish) is @inlinable and reached through closures made in the
    // @inlinable initialisers, so it is specialised for the concrete State where the store is created
    // instead of running as unspecialised generic code behind the DispatchTarget witness table.
    // `final`: the class is open, and an overridable property is read through the vtable by unspecialised
    // accessors, each copying the state through its value witnesses.
    @usableFromInline @exclusivity(unchecked) final var current: State
    @usableFromInline @exclusivity(unchecked) final var published: State
    @usableFromInline @exclusivity(unchecked) final var checkpoint: State
    @usableFromInline final var handlers: [String: HandlerBox] = [:] {
        didSet {
            lastHandlerName = nil
            lastHandler = nil
        }
    }
    /// Handlers replaced while a dispatch runs: one may be running, borrowed (see `lastHandler`), so
    /// they are kept until a handler is set with the dispatcher idle.
    @usableFromInline final var replacedHandlers: [HandlerBox] = []
    /// The handler found for the last action name: dispatch loops repeat one action, and comparing
    /// names is cheaper than hashing one.
    /// (Two properties, not an optional tuple: reading the tuple copies both halves.)
    @usableFromInline @exclusivity(unchecked) final var lastHandlerName: String?
    @usableFromInline @exclusivity(unchecked) final var lastHandler: HandlerBox?
    @usableFromInline @exclusivity(unchecked) final var everyAction: Handler<any Action>?
    /// Whether `everyAction` recomputes a derived state: it then runs only when a source changed.
    @usableFromInline final var isDerived = false
    @usableFromInline final let observers = ObserverList<State>()
    /// The specialised operations the dispatcher drives.
    @usableFromInline final let operations: StoreLane
    @usableFromInline package final var lane: StoreLane { operations }

    /// A handler, boxed so that a dispatch can borrow it instead of copying the closure.
    @usableFromInline final class HandlerBox {
        @usableFromInline let run: Handler<any Action>
        @inlinable init(_ run: @escaping Handler<any Action>) { self.run = run }
    }

    /// A store named `name` holding `state`, registered with `dispatcher`.
    @inlinable
    public init(name: String, state: State, dispatcher: Dispatcher) {
        self.name = name
        self.current = state
        self.published = state
        self.checkpoint = state
        self.dispatcher = dispatcher
        self.operations = StoreLane(
            handle: { object, action, name, _ in try Self.store(object).beginAndApply(action, named: name) },
            commit: { Self.store($0).keepCheckpoint($1, reusing: &$2) },
            publish: { Self.store($0).send() }
        )
        self.registration = dispatcher.register(self)
    }

    /// A store whose observers do not hear a state equal to the last one again.
    @inlinable
    public init(name: String, state: State, dispatcher: Dispatcher) where State: Equatable {
        self.name = name
        self.current = state
        self.published = state
        self.checkpoint = state
        self.dispatcher = dispatcher
        self.operations = Self.equatableLane()
        self.registration = dispatcher.register(self)
    }

    /// The lane of a store whose state is `Equatable`: an equal state is no change and is not published.
    /// `==` called directly, not through a closure taking two states: that would copy both; and on
    /// the stored states in place, since reading them as values copies them too.
    @inlinable
    static func equatableLane() -> StoreLane where State: Equatable {
        StoreLane(
            handle: { object, action, name, _ in try Self.store(object).beginAndApply(action, named: name) },
            commit: { object, recording, spare in
                let store = Self.store(object)
                return store.currentEquals(&store.checkpoint) ? nil : store.keepCheckpoint(recording, reusing: &spare)
            },
            publish: { object in
                let store = Self.store(object)
                if !store.currentEquals(&store.published) { store.send() }
            },
            changed: { object in
                let store = Self.store(object)
                return !store.currentEquals(&store.checkpoint)
            }
        )
    }

    /// A derived store: its state is `compute()`, which reads `sources`' states, and it changes in every
    /// dispatch that changes one of its sources — after them, in the same transaction and undo step — and in
    /// no other (``Dispatcher/derive(_:from:)``). An equal result publishes nothing.
    ///
    /// ```swift
    /// final class VisibleTodos: Store<[Todo]> {
    ///     init(dispatcher: Dispatcher, todos: TodoStore, filter: FilterStore) {
    ///         super.init(name: "visibleTodos", derivedFrom: [todos, filter], dispatcher: dispatcher) {
    ///             todos.state.filter(filter.state.admits)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// `compute` reads the sources' ``state``: inside a dispatch it holds the action's changes.
    @inlinable
    public init(name: String, derivedFrom sources: [any StoreProtocol], dispatcher: Dispatcher,
                compute: @escaping () -> State) where State: Equatable {
        let state = compute()
        self.name = name
        self.current = state
        self.published = state
        self.checkpoint = state
        self.dispatcher = dispatcher
        self.operations = Self.equatableLane()
        self.registration = dispatcher.register(self)
        isDerived = true
        everyAction = { state, _ in state = compute() }
        do {
            try dispatcher.derive(self, from: sources)
        } catch {
            dispatcher.onNote("store '\(name)': \(error)")
        }
    }

    /// The store a lane operation is called on: the lane's closures capture nothing, so they are made
    /// before `self` is and cost no context to call.
    @inlinable
    static func store(_ object: AnyObject) -> Store<State> {
        unsafeDowncast(object, to: Store<State>.self)
    }

    /// Whether the state now equals `other` (one of the stored states), compared where both are stored.
    @inlinable
    final func currentEquals(_ other: inout State) -> Bool where State: Equatable {
        withUnsafeMutablePointer(to: &current) { current in
            withUnsafeMutablePointer(to: &other) { $0.pointee == current.pointee }
        }
    }

    /// The state from `begin()` with its cost, to keep for undo, when `keeping`: in the box in
    /// `spare` when that can be reused (taken from it), else in a new one.
    @inlinable
    final func keepCheckpoint(_ keeping: Bool, reusing spare: inout KeptState?) -> StoreLane.Kept {
        guard keeping else { return (nil, 0) }
        // Moved out and back around the call: passed from the stored property, or read through a
        // pointer, the state would be copied (a retain and a release). Nothing `undoCost` can reach
        // reads the checkpoint.
        let cost = withUnsafeMutablePointer(to: &checkpoint) { checkpoint in
            let state = checkpoint.move()
            let cost = undoCost(of: state)
            checkpoint.initialize(to: consume state)
            return cost
        }
        if let box = reusable(&spare, as: KeptValue<State>.self) {
            // Swapped, not copied: the checkpoint is not read again before the next action's
            // `beginAndApply` replaces it, and a swap costs no retain and release. (The old state it
            // holds until then is small: only a small state's box is reused.)
            swap(&box.state, &checkpoint)
            return (box, cost)
        }
        return (KeptValue(checkpoint), cost)
    }

    /// What keeping `state` as an undo step costs, in bytes: the history drops its oldest steps when
    /// their costs together pass ``History/memoryLimit``.
    ///
    /// The default is the state's inline size: the arrays, strings and dictionaries of a value-type
    /// state share their storage with the states before and after it until a handler writes to them,
    /// so a step usually adds little more. Override it for a store whose actions rewrite large buffers.
    open func undoCost(of state: State) -> Int {
        MemoryLayout<State>.stride
    }

    // MARK: Handlers

    /// Handles actions of type `A`: `handler` changes the state it is given, or throws to refuse.
    ///
    /// The action type is registered with the dispatcher's registry so it can be dispatched by name.
    /// When another type already has the name, the store refuses every action of that name with
    /// ``ActionError/conflictingTypes(action:registered:new:)`` (so dispatching it fails and changes
    /// nothing) and the dispatcher's ``Dispatcher/onNote`` hears the conflict at once.
    @inlinable
    public final func on<A: Action>(_ type: A.Type, _ handler: @escaping Handler<A>) {
        do {
            try dispatcher.registry.register(A.self)
        } catch {
            setHandler({ _, _ in throw error }, for: A.name)
            dispatcher.onNote("store '\(name)': \(error)")
            dispatcher.routesChanged(for: self, names: CollectionOfOne(A.name))
            return
        }
        setHandler({ state, action in
            // An identity check of the type and a direct read instead of `as?`, whose runtime cast
            // costs more than the rest of a small handler.
            guard let typed = unwrapAction(action, as: A.self) else {
                throw ActionError.invalidPayload(action: A.name, message: "expected \(A.self), got \(Swift.type(of: action))")
            }
            try handler(&state, typed)
        }, for: A.name)
        dispatcher.routesChanged(for: self, names: CollectionOfOne(A.name))
    }

    /// Sets the handler of `name`. One it replaces may be running (a handler calling `on`), so while the
    /// dispatcher handles an action it is kept in `replacedHandlers`; with the dispatcher idle none runs
    /// borrowed, and those are let go.
    @usableFromInline
    final func setHandler(_ handler: @escaping Handler<any Action>, for name: String) {
        if dispatcher.hot.phase == .idle {
            if !replacedHandlers.isEmpty { replacedHandlers.removeAll() }
        } else if let replaced = handlers[name] {
            replacedHandlers.append(replaced)
        }
        handlers[name] = HandlerBox(handler)
    }

    /// Changes the state for one action with the dispatch's context, to ``DispatchContext/waitFor(_:)``
    /// other stores first, or throws to refuse it.
    public typealias ContextHandler<A> = (inout State, A, DispatchContext) throws -> Void

    /// `on` for a handler that needs other stores to handle the action first: it reaches them through
    /// the context, so it need not capture (and keep alive) the dispatcher, which owns the store.
    ///
    /// ```swift
    /// on(Checkout.self) { state, action, context in
    ///     try context.waitFor([cart.token])
    ///     state.total = cart.state.total
    /// }
    /// ```
    @inlinable
    public final func on<A: Action>(_ type: A.Type, _ handler: @escaping ContextHandler<A>) {
        let context = DispatchContext(dispatcher: dispatcher)
        on(type) { state, action in try handler(&state, action, context) }
    }

    /// Sees every action dispatched, after any handler for its type. A store derived from others is
    /// better declared (``init(name:derivedFrom:dispatcher:compute:)``): it then runs only when they change.
    public final func onEveryAction(_ handler: @escaping Handler<any Action>) {
        everyAction = handler
        dispatcher.routesChanged()
    }

    /// `onEveryAction` for a derived store: `handler` reaches the stores it waits for through the
    /// context, so it need not capture (and keep alive) the dispatcher.
    public final func onEveryAction(_ handler: @escaping ContextHandler<any Action>) {
        let context = DispatchContext(dispatcher: dispatcher)
        let plain: Handler<any Action> = { state, action in try handler(&state, action, context) }
        onEveryAction(plain)
    }

    /// `begin()` and ``apply(_:)`` with one copy of the state: the state now becomes the checkpoint
    /// (moved, not copied) only once the handlers have made the next one.
    @inlinable
    final func beginAndApply(_ action: any Action, named name: String) throws {
        var next = current
        do {
            if let handler = handler(for: name) { try handler.run(&next, action) }
            if let everyAction { try everyAction(&next, action) }
        } catch {
            checkpoint = current
            throw error
        }
        swap(&checkpoint, &current)
        current = next
    }

    @inlinable
    final func apply(_ action: any Action) throws {
        var next = current
        if let handler = handler(for: action.name) { try handler.run(&next, action) }
        if let everyAction { try everyAction(&next, action) }
        current = next
    }

    /// The repeated name's check inlined into the dispatch, the lookup out of line: called, the check
    /// costs as much again in the call.
    @inlinable @inline(__always)
    final func handler(for name: String) -> HandlerBox? {
        if lastHandlerName == name { return lastHandler }
        return lookUpHandler(name)
    }

    @inlinable @inline(never)
    final func lookUpHandler(_ name: String) -> HandlerBox? {
        let handler = handlers[name]
        lastHandlerName = name
        lastHandler = handler
        return handler
    }

    // MARK: Observing

    /// Calls `observer` with the state now and after every change until the subscription is cancelled.
    @inlinable
    public final func subscribe(_ observer: @escaping (State) -> Void) -> StoreSubscription {
        let entry = observers.add(observer)
        observer(published)
        // Strong captures: a weak reference would give the store and the observer side tables, which
        // make every retain on the notification path take the slow path.
        return StoreSubscription { [self] in observers.cancel(entry) }
    }

    /// How many observers are subscribed.
    public final var subscriberCount: Int { observers.count }

    @inlinable
    final func send() {
        published = current
        // The state is copied once, into a constant every observer borrows: read from the stored property
        // (or through a pointer) it would be copied, and retained, per observer.
        let state = published
        observers.send(state)
    }

    // MARK: StoreProtocol

    public final var actionNames: [String] { handlers.keys.sorted() }
    /// True for a derived store too (it may change with any action), though it is on no action's route.
    public final var handlesEveryAction: Bool { everyAction != nil }
    public final var encodableState: any Encodable { published }

    public final func subscribeEncodable(_ observer: @escaping (any Encodable) -> Void) -> StoreSubscription {
        subscribe { observer($0) }
    }

    public final func handles(_ actionName: String) -> Bool {
        (everyAction != nil && !isDerived) || handlers[actionName] != nil
    }

    public final func handle(_ action: any Action, in dispatcher: Dispatcher) throws {
        try apply(action)
    }

    public final func publish() {
        operations.publish(self)
    }
}

// The transaction witness: plumbing for the dispatcher, the history and sessions, not for apps.
extension Store: TransactionalTarget {
    package final func begin() { checkpoint = current }
    package final func rollback() { current = checkpoint }
    package final func commit() -> Any? {
        var spare: KeptState?
        return operations.commit(self, true, &spare)?.state?.value
    }
    package final func snapshot() -> Any { current }

    package final func restore(_ snapshot: Any) {
        if let snapshot = snapshot as? State { current = snapshot }
    }

    package final func cost(of snapshot: Any) -> Int {
        (snapshot as? State).map(undoCost(of:)) ?? 0
    }
}

/// The value inside `action` when it holds an `A`, else nil.
///
/// The existential is opened, which reads the type it holds from its container: cheaper than
/// `type(of:)`, which asks the runtime for the dynamic type, and than an `as?` cast.
@inlinable
func unwrapAction<A: Action>(_ action: any Action, as type: A.Type) -> A? {
    func read<T: Action>(_ value: T) -> A? {
        guard T.self == A.self else { return nil }
        // The same type, so a bit cast is a plain copy (cheaper than reading it through a pointer,
        // which costs a closure).
        return unsafeBitCast(value, to: A.self)
    }
    return read(action)
}
