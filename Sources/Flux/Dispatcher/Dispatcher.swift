import DequeModule
import Foundation

/// The one hub every action goes through, with the semantics of Facebook's Flux dispatcher.
///
/// Stores ``register(_:)`` and receive the actions they handle; ``waitFor(_:)`` inside a handler runs
/// other stores first. A dispatch is a transaction: when any store's handler throws, every store that
/// already changed for that action is restored, no subscriber hears anything, and the caller gets a
/// ``DispatcherError/storeFailed(store:action:underlying:)`` naming store and action. Subscribers are
/// notified only after every store has handled the action; an action a subscriber dispatches then is
/// queued and runs after the current one, in order, never re-entrantly.
///
/// ```swift
/// let dispatcher = Dispatcher()
/// let store = AnnotationFilterStore(dispatcher: dispatcher)
/// try dispatcher.dispatch(ToggleFilter(filter: .hideEverything))
/// try dispatcher.undo()
/// ```
///
/// A dispatcher is used from one thread.
///
/// This file holds the type and the routing of an action to its stores; each other mechanism has a
/// file of its own: the transaction (`Dispatcher+Transaction`), undo groups (`Dispatcher+Group`), the
/// follow-up queue (`Dispatcher+FollowUps`) and travel through the history (`Dispatcher+Undo`).
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): the fields every dispatch
/// reads and writes — the phase, the generation, the touched list, the route of the last action, where
/// the action comes from, the stream of settled commits (together in `hot`), the middleware, and a
/// registration's marks — are declared without dynamic exclusivity checks; grouped, a dispatch pays
/// for no check at all instead of one per field. Invariant: a dispatcher is used from one thread, and
/// no access to one of them spans a call out (a handler, a subscriber, a middleware hook, a Lua
/// callback): each is read or written in one statement,
/// registrations and follow-ups dropped are released after the access, and a call that may re-enter the
/// dispatcher (`waitFor`, a follow-up) reads them afresh. The registration running now (`hot.running`)
/// and the one each pending registration interrupted (`marks.waitingOne`) are unretained: each names a
/// registration whose `invoke` is on the stack, whose caller holds it (a route, `lastRouteOnly` read
/// into a local, a look-up), and `invoke` puts both back before it returns or throws. Broken,
/// `LuaTortureSpec` (callbacks that dispatch, cancel, redefine and collect at every point of a dispatch;
/// stores that wait for each other) and `SubscriberLifetimeSpec` fail under FLUX_GC_TORTURE=1.
public final class Dispatcher {
    /// Every action name stores answer to, and how to build each from a payload.
    public var registry = ActionRegistry()
    /// Undo and redo, one step per action or per ``group(_:_:)``.
    public let history: History
    /// Hooks run around every dispatch, in order.
    @exclusivity(unchecked) public var middleware: [any Middleware] = []
    /// How many follow-up actions may run in a row after one dispatch before the queue is dropped as a
    /// loop (reported through ``onFollowUpError`` as ``DispatcherError/followUpsDidNotSettle(action:limit:)``).
    public var followUpLimit = 100_000
    /// Told of every target registered from now on (a session gives a store defined later its saved state).
    public var didRegister: ((any DispatchTarget) -> Void)?
    /// Told when an action queued by a subscriber fails (the action that queued it already succeeded).
    public var onFollowUpError: (any Action, any Error) -> Void = Dispatcher.writeFollowUpError

    /// Told what the user should know once, such as undo steps dropped to bound the history's memory.
    public var onNote: (String) -> Void = Dispatcher.writeNote

    /// The default ``onNote``: one line on standard error.
    public static func writeNote(_ note: String) {
        StandardError.write(line: "note: \(note)")
    }

    /// The default ``onFollowUpError``: one line on standard error.
    public static func writeFollowUpError(_ action: any Action, _ error: any Error) {
        StandardError.write(line: "follow-up '\(action.name)' failed: \(DispatcherError.describe(error))")
    }

    enum Phase { case idle, handling, notifying }

    /// One registered target, with the operations the dispatcher drives it through.
    final class Registration {
        let token: DispatchToken
        let target: any DispatchTarget
        /// The target's part in the transaction: the target itself, or a witness with nothing to keep.
        let transaction: any TransactionalTarget
        /// The target's operations: a store's specialised ones, or closures over the witnesses.
        let lane: StoreLane
        /// The target as the lane takes it.
        let object: AnyObject
        /// The target as a store, cast once here: the shell asks for stores by name often.
        let store: (any StoreProtocol)?
        /// What a dispatch marks on the registration: the generation it last handled, whether its handler
        /// is running, and while pending, the registration whose handler waits for this one (for `waitFor`
        /// cycles).
        struct Marks {
            var handledGeneration = 0
            var pending = false
            /// Unretained: the `invoke` that set it holds that registration until it clears it.
            var waitingOne: Unmanaged<Registration>?
        }

        @exclusivity(unchecked) var marks = Marks()
        /// For a derived target: the registrations it is derived from (``Dispatcher/derive(_:from:)``).
        var sources: [Registration] = []
        /// The derived registrations that recompute when this one changes.
        var dependents: [Registration] = []
        /// False once unregistered.
        var isRegistered = true

        init(token: DispatchToken, target: any DispatchTarget) {
            self.token = token
            self.target = target
            transaction = target as? any TransactionalTarget ?? StatelessTransaction(target)
            object = target
            store = target as? any StoreProtocol
            lane = (target as? any StoreLaneProviding)?.lane ?? StoreLane(target: transaction)
        }
    }

    /// The fields every dispatch reads and writes, in one struct behind one property.
    struct Hot {
        var phase = Phase.idle
        /// Goes up by one each action: a registration marked with it has handled the action.
        var generation = 0
        /// How many registered targets are derived: none, and a dispatch skips the derived pass at once.
        var derivedCount = 0
        /// The action being handled: it lives in `perform`'s frame, so it is not copied.
        var currentAction: UnsafePointer<any Action>?
        /// The registration whose handler runs now: unretained, as the `invoke` running it holds it.
        var running: Unmanaged<Registration>?
        /// The registrations the current action touched: the first `touchedCount` of `touched`, whose
        /// slots are reused from action to action (emptying and refilling an array costs more).
        var touched = Route()
        var touchedCount = 0
        /// Actions subscribers dispatched, to run after the current one.
        var followUps = Deque<FollowUp>()
        /// Whether ``silently(_:)`` runs: no store publishes until it ends.
        var isSilent = false
        /// The group open now, if any.
        var openGroup: OpenGroup?
        /// The name of the action routed last, and its route; its one registration when it holds one
        /// (most actions have one store): the dispatch then reaches it without retaining the route.
        var lastRouteName = ""
        var lastRoute = Route()
        var lastRouteOnly: Registration?
        /// Registrations unregistered during a dispatch, kept until it ends.
        var retired: [Registration] = []
        /// ``isFollowUp``, ``isEffect`` and ``dropsFollowUps``: read for every commit the stream tells.
        var isFollowUp = false
        var isEffect = false
        var dropsFollowUps = false
        /// The stream of settled commits, once made (``SettledCommits/of(_:)``): told of every commit
        /// before the middleware.
        var commits: SettledCommits?
    }

    @exclusivity(unchecked) var hot = Hot()

    var registrations: [Registration] = []
    var registrationsByID: [Int: Registration] = [:]
    /// The first registration of each name (stores' names are unique; callbacks may share one), and the
    /// names registered more than once: registering and unregistering cost O(1), not a walk of all.
    private var registrationsByName: [String: Registration] = [:]
    private var sharedNames: Set<String> = []
    private var nextID = 1
    // One unregistered during a dispatch is kept in `retired` until the dispatch ends.
    typealias Route = ContiguousArray<Registration>
    private var routes: [String: Route] = [:]

    /// Derived registrations whose sources were unregistered (``adoptOrphans(of:)``).
    var orphans: [Orphan] = []
    /// The group a subscriber opened: the actions it queues run later as one group.
    var queueingGroup: OpenGroup?
    var draining = false
    /// How many ``allOrNothing(_:)`` calls are running: nothing is settled (or saved) inside one.
    var allOrNothingDepth = 0
    /// Whether the action being handled or published now was queued by a subscriber: a log records
    /// it as a follow-up, so that a replay does not dispatch it a second time. A replay sets it for the
    /// follow-ups it dispatches in their recorded places.
    public internal(set) var isFollowUp: Bool {
        get { hot.isFollowUp }
        set { hot.isFollowUp = newValue }
    }
    /// Whether the actions dispatched now come from an effect's callback (a timer, a process, a file watch,
    /// a `flux.on` listener): a log marks them, and a replay dispatches them in their places while starting
    /// no effect. The effects runtime sets it around each callback.
    public var isEffect: Bool {
        get { hot.isEffect }
        set { hot.isEffect = newValue }
    }
    /// While true, actions that subscribers dispatch are dropped instead of queued: a replay dispatches
    /// the recorded follow-ups itself, in their recorded places.
    public var dropsFollowUps: Bool {
        get { hot.dropsFollowUps }
        set { hot.dropsFollowUps = newValue }
    }
    var nextGroupID = 1

    /// A dispatcher with no stores, keeping `historyLimit` undo steps.
    public init(historyLimit: Int = 100) {
        history = History(limit: historyLimit)
    }

    /// A derived registration and its sources hold each other: the links go with the dispatcher, so
    /// that its stores do too.
    deinit {
        for registration in registrations {
            registration.sources = []
            registration.dependents = []
        }
    }

    // MARK: Registration

    /// Registers a store or other target; it receives every action it ``DispatchTarget/handles(_:)``.
    ///
    /// Costs O(the routes cached), not O(the targets registered): the new target joins the cached routes
    /// of the actions it handles.
    @discardableResult
    public func register(_ target: any DispatchTarget) -> DispatchToken {
        let token = DispatchToken(id: nextID, name: target.name)
        nextID += 1
        let registration = Registration(token: token, target: target)
        registrations.append(registration)
        registrationsByID[token.id] = registration
        if registrationsByName[token.name] == nil {
            registrationsByName[token.name] = registration
        } else {
            sharedNames.insert(token.name)
        }
        for name in routes.keys where target.handles(name) { routes[name]?.append(registration) }
        forgetLastRoute()
        adoptOrphans(of: registration)
        didRegister?(target)
        return token
    }

    /// Registers a callback that sees every action, as in Facebook's dispatcher.
    @discardableResult
    public func register(name: String, _ callback: @escaping (any Action) throws -> Void) -> DispatchToken {
        register(CallbackTarget(name: name, callback: callback))
    }

    /// Removes a registration.
    ///
    /// - Throws: ``DispatcherError/unknownToken(_:)`` when the token is not registered.
    public func unregister(_ token: DispatchToken) throws {
        guard let registration = registrationsByID.removeValue(forKey: token.id) else {
            throw DispatcherError.unknownToken(token)
        }
        if let index = registrations.lastIndex(where: { $0 === registration }) { registrations.remove(at: index) }
        let name = registration.token.name
        if registrationsByName[name] === registration {
            if sharedNames.contains(name), let next = registrations.first(where: { $0.token.name == name }) {
                registrationsByName[name] = next
            } else {
                registrationsByName[name] = nil
                sharedNames.remove(name)
            }
        }
        registration.isRegistered = false
        if hot.phase != .idle { hot.retired.append(registration) }
        if !registration.sources.isEmpty || !registration.dependents.isEmpty { forgetDerivation(of: registration) }
        for (name, route) in routes where route.contains(where: { $0 === registration }) {
            routes[name]?.removeAll { $0 === registration }
        }
        forgetLastRoute()
    }

    /// Must be called when a registered target starts or stops handling action names it does not name
    /// (a store that starts seeing every action): every cached route is built again.
    public func routesChanged() {
        routes.removeAll(keepingCapacity: true)
        forgetLastRoute()
    }

    /// Must be called when `target` starts or stops handling the actions `names`: only their cached
    /// routes change, so (re)defining a store costs O(the actions it names).
    public func routesChanged(for target: any DispatchTarget, names: some Sequence<String>) {
        guard !routes.isEmpty, let registration = registration(of: target) else { return forgetLastRoute() }
        for name in names {
            guard var route = routes[name] else { continue }
            let position = route.firstIndex { $0.token.id >= registration.token.id } ?? route.endIndex
            let isOn = position < route.endIndex && route[position] === registration
            if target.handles(name) != isOn {
                if isOn { route.remove(at: position) } else { route.insert(registration, at: position) }
                routes[name] = route
            }
        }
        forgetLastRoute()
    }

    /// The registration of `target`: by its name, else (a name shared) by a walk.
    func registration(of target: any DispatchTarget) -> Registration? {
        if let registration = registrationsByName[target.name], registration.target === target { return registration }
        return sharedNames.contains(target.name) ? registrations.first { $0.target === target } : nil
    }

    private func forgetLastRoute() {
        // Swapped out, so that the registrations are let go after the accesses end.
        var route = Route()
        var only: Registration?
        swap(&route, &hot.lastRoute)
        swap(&only, &hot.lastRouteOnly)
        hot.lastRouteName = ""
    }

    /// The registered stores, in registration order.
    public var stores: [any StoreProtocol] {
        registrations.compactMap(\.store)
    }

    /// The registered store called `name`.
    public func store(named name: String) -> (any StoreProtocol)? {
        guard let registration = registrationsByName[name] else { return nil }
        if let store = registration.store { return store }
        // A callback shares the store's name: the store registered first.
        return sharedNames.contains(name) ? registrations.lazy.compactMap(\.store).first { $0.name == name } : nil
    }

    /// The token of the registered target called `name`.
    public func token(named name: String) -> DispatchToken? {
        registrationsByName[name]?.token
    }

    // MARK: Dispatch

    /// Whether stores are handling an action right now.
    public var isDispatching: Bool { hot.phase == .handling }

    /// Whether no group is open and no follow-up is queued: what has been dispatched is complete, so a
    /// session saving now saves no half of a group or an action without its follow-ups.
    public var isSettled: Bool { hot.openGroup == nil && hot.followUps.isEmpty && allOrNothingDepth == 0 }

    /// Whether nothing is being dispatched, published or queued and no group is open: work that must run
    /// outside a dispatch (a `flux.on` listener) can run now.
    public var isIdle: Bool { hot.phase == .idle && isSettled }

    /// The label and number of the undo group open now, if any (the action log records it).
    public var currentGroup: (id: Int, label: String)? {
        hot.openGroup.map { ($0.id, $0.label) }
    }

    /// Sends `action` to every store that handles it, then notifies subscribers of the stores that changed.
    ///
    /// Called from a subscriber, the action is queued and runs after the current one.
    /// - Throws: ``DispatcherError``; on any error no store has changed.
    public func dispatch(_ action: any Action) throws {
        switch hot.phase {
        case .handling:
            throw DispatcherError.dispatchInsideHandler(action: action.name, current: hot.currentAction?.pointee.name ?? "?")
        case .notifying:
            if !dropsFollowUps { hot.followUps.append(FollowUp(action: action, group: queueingGroup)) }
        case .idle:
            try perform(action)
            if !hot.followUps.isEmpty { drainFollowUps() }
        }
    }

    /// Inside a store's handler: runs the stores behind `tokens` on the current action first.
    ///
    /// - Throws: ``DispatcherError/waitForOutsideDispatch``, ``DispatcherError/unknownToken(_:)``,
    ///   ``DispatcherError/waitForCycle(stores:)``, or the error of a store it ran.
    public func waitFor(_ tokens: [DispatchToken]) throws {
        guard hot.phase == .handling, let action = hot.currentAction else {
            throw DispatcherError.waitForOutsideDispatch
        }
        for token in tokens {
            guard let registration = registrationsByID[token.id] else {
                throw DispatcherError.unknownToken(token)
            }
            if registration.marks.pending { throw DispatcherError.waitForCycle(stores: cycle(to: registration)) }
            let name = action.pointee.name
            if !registration.sources.isEmpty {
                try bringUpToDate(registration, action.pointee, name)
                continue
            }
            guard registration.marks.handledGeneration != hot.generation, registration.target.handles(name) else { continue }
            try invoke(registration, action.pointee, name)
        }
    }

    func perform(_ action: any Action) throws {
        hot.phase = .handling
        hot.generation &+= 1
        hot.touchedCount = 0 // zero after every action already
        defer { if !hot.retired.isEmpty { dropRetired() } }
        let name = action.name
        if middleware.isEmpty, name == hot.lastRouteName, let only = hot.lastRouteOnly {
            return try perform(action, name, only: only)
        }
        do {
            try withUnsafePointer(to: action) { action in
                hot.currentAction = action
                defer { hot.currentAction = nil }
                try handle(action.pointee, name)
                if hot.derivedCount != 0 { try recomputeDerived(action.pointee, name) }
            }
        } catch {
            rollBack(action, error)
            throw error
        }
        keepChanges(action, name)
        publishTouched()
        finish(action)
    }

    /// ``perform(_:)`` for the usual action: one store on its route, the one the same action reached last,
    /// and no middleware to run first. Its registration, read once, is handed down borrowed to be handled,
    /// committed and published (read from the touched list at each step, it would be retained at each).
    private func perform(_ action: any Action, _ name: String, only: Registration) throws {
        do {
            try withUnsafePointer(to: action) { action in
                hot.currentAction = action
                defer { hot.currentAction = nil }
                try invoke(only, action.pointee, name)
                if hot.derivedCount != 0 { try recomputeDerived(action.pointee, name) }
            }
        } catch {
            rollBack(action, error)
            throw error
        }
        // `only` was touched first: when it is the one touched, it is the whole step.
        if hot.touchedCount == 1, hot.openGroup == nil {
            keepOnlyChange(only, action, name)
            hot.phase = .notifying
            if hot.touchedCount == 1, !hot.isSilent { only.lane.publish(only.object) }
        } else {
            keepChanges(action, name)
            publishTouched()
        }
        finish(action)
    }

    /// Puts back every target the failed `action` touched and tells the middleware.
    private func rollBack(_ action: any Action, _ error: any Error) {
        rollBackTouched()
        hot.phase = .idle
        for hook in middleware { hook.didFail(action, error: error, in: self) }
    }

    /// Publishes the targets the action changed (those `keepChanges` left in `touched`).
    private func publishTouched() {
        hot.phase = .notifying
        guard !hot.isSilent else { return }
        for index in 0 ..< hot.touchedCount {
            let registration = hot.touched[index]
            registration.lane.publish(registration.object)
        }
    }

    /// Tells the stream of settled commits, then the middleware, of the committed `action`, and ends the dispatch.
    private func finish(_ action: any Action) {
        if let commits = hot.commits { commits.didCommit(action, in: self) { changedNames } }
        if !middleware.isEmpty {
            let names = changedNames
            for hook in middleware { hook.didDispatch(action, changed: names, in: self) }
        }
        hot.touchedCount = 0
        hot.phase = .idle
    }

    /// The names of the targets the action being finished changed.
    private var changedNames: [String] { hot.touched[..<hot.touchedCount].map { $0.target.name } }

    /// Lets go of the registrations unregistered during the dispatch, after the access to `hot` ends.
    private func dropRetired() {
        var dropped: [Registration] = []
        swap(&dropped, &hot.retired)
    }

    /// Runs the middleware, then every store on the route of `action`.
    private func handle(_ action: any Action, _ name: String) throws {
        if !middleware.isEmpty {
            for hook in middleware {
                do {
                    try hook.willDispatch(action, in: self)
                } catch let error as DispatcherError {
                    throw error
                } catch {
                    throw DispatcherError.rejected(action: name, reason: DispatcherError.describe(error))
                }
            }
        }
        if name == hot.lastRouteName, let only = hot.lastRouteOnly {
            if only.marks.handledGeneration != hot.generation { try invoke(only, action, name) }
            return
        }
        let route = self.route(name)
        for registration in route where registration.marks.handledGeneration != hot.generation {
            try invoke(registration, action, name)
        }
    }

    func invoke(_ registration: Registration, _ action: any Action, _ name: String) throws {
        registration.marks.pending = true
        registration.marks.waitingOne = hot.running
        hot.running = Unmanaged.passUnretained(registration)
        defer {
            registration.marks.pending = false
            hot.running = registration.marks.waitingOne
            registration.marks.waitingOne = nil
        }
        if hot.touchedCount < hot.touched.count {
            // A dispatch loop touches the same store action after action: a slot already holding it is
            // not written again (a write checks that the list is not shared).
            if hot.touched[hot.touchedCount] !== registration { hot.touched[hot.touchedCount] = registration }
        } else {
            hot.touched.append(registration)
        }
        hot.touchedCount += 1
        do {
            try registration.lane.handle(registration.object, action, name, self)
        } catch let error as DispatcherError {
            if case .storeFailed = error { throw error }
            throw DispatcherError.storeFailed(store: registration.target.name, action: action.name, underlying: error)
        } catch {
            throw DispatcherError.storeFailed(store: registration.target.name, action: action.name, underlying: error)
        }
        registration.marks.handledGeneration = hot.generation
    }

    /// The names of the stores from `registration` (pending) to the one running now, which waits for it
    /// again, with `registration` repeated at the end.
    func cycle(to registration: Registration) -> [String] {
        var names = [registration.target.name]
        var next = hot.running?.takeUnretainedValue()
        while let waiting = next, waiting !== registration {
            names.append(waiting.target.name)
            next = waiting.marks.waitingOne?.takeUnretainedValue()
        }
        return [registration.target.name] + names.dropFirst().reversed() + [registration.target.name]
    }

    func route(_ name: String) -> Route {
        // Most dispatch loops repeat one action; comparing names is cheaper than hashing one.
        if name == hot.lastRouteName { return hot.lastRoute }
        let route: Route
        if let cached = routes[name] {
            route = cached
        } else {
            route = Route(registrations.lazy.filter { $0.target.handles(name) })
            if routes.count > 4096 { routes.removeAll() }
            routes[name] = route
        }
        var previous = route
        var only = route.count == 1 ? route[0] : nil
        swap(&previous, &hot.lastRoute) // the route before let go after the access
        swap(&only, &hot.lastRouteOnly)
        hot.lastRouteName = name
        return route
    }
}
