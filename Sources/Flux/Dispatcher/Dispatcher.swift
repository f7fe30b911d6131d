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
public final class Dispatcher {
    /// Every action name stores answer to, and how to build each from a payload.
    public var registry = ActionRegistry()
    /// Undo and redo, one step per action or per ``group(_:_:)``.
    public let history: History
    /// Hooks run around every dispatch, in order.
    @exclusivity(unchecked) public var middleware: [any Middleware] = []
    /// Told of every committed action and step, after the middleware (one observer: a session's journal).
    @exclusivity(unchecked) public var commitObserver: (any CommitObserver)?
    /// How many follow-up actions may run in a row after one dispatch before the queue is dropped as a
    /// loop (reported through ``onFollowUpError`` as ``DispatcherError/followUpsDidNotSettle(action:limit:)``).
    public var followUpLimit = 100_000
    /// Told of every target registered from now on (a session gives a store defined later its saved state).
    public var didRegister: ((any DispatchTarget) -> Void)?
    /// Told when an action queued by a subscriber fails (the action that queued it already succeeded).
    public var onFollowUpError: (any Action, any Error) -> Void = Dispatcher.writeFollowUpError

    /// The default ``onFollowUpError``: one line on standard error.
    public static func writeFollowUpError(_ action: any Action, _ error: any Error) {
        try? FileHandle.standardError.write(contentsOf: Data("follow-up '\(action.name)' failed: \(DispatcherError.describe(error))\n".utf8))
    }

    private enum Phase { case idle, handling, notifying }

    private final class Registration {
        let token: DispatchToken
        let target: any DispatchTarget
        @exclusivity(unchecked) var handledGeneration = 0
        @exclusivity(unchecked) var pending = false

        init(token: DispatchToken, target: any DispatchTarget) {
            self.token = token
            self.target = target
        }
    }

    // A class: the hot path only asks whether a group is open, and an optional reference answers that
    // without copying the group.
    private final class OpenGroup {
        let id: Int
        let label: String
        var entry: HistoryEntry
        /// How many actions the group has dispatched successfully: those a rollback takes back.
        var performed = 0

        init(id: Int, label: String) {
            self.id = id
            self.label = label
            entry = HistoryEntry(label: label)
        }
    }

    /// An action a subscriber dispatched, run once the current one is done; with the group it was
    /// queued in, if a subscriber's `group` queued it.
    private struct FollowUp {
        let action: any Action
        let group: OpenGroup?
    }

    // One thread, and no access spans a call out: the dynamic exclusivity checks are left out.
    @exclusivity(unchecked) private var phase = Phase.idle
    @exclusivity(unchecked) private var registrations: [Registration] = []
    @exclusivity(unchecked) private var registrationsByID: [Int: Registration] = [:]
    private var nextID = 1
    @exclusivity(unchecked) private var routes: [String: [Registration]] = [:]
    @exclusivity(unchecked) private var lastRoute: (name: String, targets: [Registration]) = ("", [])

    @exclusivity(unchecked) private var generation = 0
    @exclusivity(unchecked) private var currentAction: (any Action)?
    @exclusivity(unchecked) private var pendingStack: [Registration] = []
    @exclusivity(unchecked) private var touched: [Registration] = []
    @exclusivity(unchecked) private var followUps = Deque<FollowUp>()
    /// The group a subscriber opened: the actions it queues run later as one group.
    @exclusivity(unchecked) private var queueingGroup: OpenGroup?
    @exclusivity(unchecked) private var draining = false
    /// Whether the action being handled or published now was queued by a subscriber: a log records
    /// it as a follow-up, so that a replay does not dispatch it a second time.
    @exclusivity(unchecked) public private(set) var isFollowUp = false
    /// While true, actions that subscribers dispatch are dropped instead of queued: a replay dispatches
    /// the recorded follow-ups itself, in their recorded places.
    @exclusivity(unchecked) public var dropsFollowUps = false
    @exclusivity(unchecked) private var openGroup: OpenGroup?
    private var nextGroupID = 1

    /// A dispatcher with no stores, keeping `historyLimit` undo steps.
    public init(historyLimit: Int = 100) {
        history = History(limit: historyLimit)
    }

    // MARK: Registration

    /// Registers a store or other target; it receives every action it ``DispatchTarget/handles(_:)``.
    @discardableResult
    public func register(_ target: any DispatchTarget) -> DispatchToken {
        let token = DispatchToken(id: nextID, name: target.name)
        nextID += 1
        let registration = Registration(token: token, target: target)
        registrations.append(registration)
        registrationsByID[token.id] = registration
        routesChanged()
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
        registrations.removeAll { $0 === registration }
        routesChanged()
    }

    /// Must be called when a registered target starts or stops handling an action name.
    public func routesChanged() {
        routes.removeAll(keepingCapacity: true)
        lastRoute = ("", [])
    }

    /// The registered stores, in registration order.
    public var stores: [any StoreProtocol] {
        registrations.compactMap { $0.target as? any StoreProtocol }
    }

    /// The registered store called `name`.
    public func store(named name: String) -> (any StoreProtocol)? {
        registrations.lazy.compactMap { $0.target as? any StoreProtocol }.first { $0.name == name }
    }

    /// The token of the registered target called `name`.
    public func token(named name: String) -> DispatchToken? {
        registrations.first { $0.target.name == name }?.token
    }

    // MARK: Dispatch

    /// Whether stores are handling an action right now.
    public var isDispatching: Bool { phase == .handling }

    /// Whether no group is open and no follow-up is queued: what has been dispatched is complete, so a
    /// session saving now saves no half of a group or an action without its follow-ups.
    public var isSettled: Bool { openGroup == nil && followUps.isEmpty }

    /// The label and number of the undo group open now, if any (the action log records it).
    public var currentGroup: (id: Int, label: String)? {
        openGroup.map { ($0.id, $0.label) }
    }

    /// Sends `action` to every store that handles it, then notifies subscribers of the stores that changed.
    ///
    /// Called from a subscriber, the action is queued and runs after the current one.
    /// - Throws: ``DispatcherError``; on any error no store has changed.
    public func dispatch(_ action: any Action) throws {
        switch phase {
        case .handling:
            throw DispatcherError.dispatchInsideHandler(action: action.name, current: currentAction?.name ?? "?")
        case .notifying:
            if !dropsFollowUps { followUps.append(FollowUp(action: action, group: queueingGroup)) }
        case .idle:
            try perform(action)
            if !followUps.isEmpty { drainFollowUps() }
        }
    }

    /// Inside a store's handler: runs the stores behind `tokens` on the current action first.
    ///
    /// - Throws: ``DispatcherError/waitForOutsideDispatch``, ``DispatcherError/unknownToken(_:)``,
    ///   ``DispatcherError/waitForCycle(stores:)``, or the error of a store it ran.
    public func waitFor(_ tokens: [DispatchToken]) throws {
        guard phase == .handling, let action = currentAction else {
            throw DispatcherError.waitForOutsideDispatch
        }
        for token in tokens {
            guard let registration = registrationsByID[token.id] else {
                throw DispatcherError.unknownToken(token)
            }
            if registration.pending {
                let start = pendingStack.firstIndex { $0 === registration } ?? 0
                let cycle = pendingStack[start...].map(\.target.name) + [registration.target.name]
                throw DispatcherError.waitForCycle(stores: cycle)
            }
            guard registration.handledGeneration != generation,
                  registration.target.handles(action.name) else { continue }
            try invoke(registration, action)
        }
    }

    private func perform(_ action: any Action) throws {
        let name = action.name
        phase = .handling
        currentAction = action
        generation &+= 1
        if !touched.isEmpty { touched.removeAll(keepingCapacity: true) } // emptied after every action
        defer { currentAction = nil }
        do {
            for hook in middleware {
                do {
                    try hook.willDispatch(action, in: self)
                } catch let error as DispatcherError {
                    throw error
                } catch {
                    throw DispatcherError.rejected(action: name, reason: DispatcherError.describe(error))
                }
            }
            for registration in route(name) where registration.handledGeneration != generation {
                try invoke(registration, action)
            }
        } catch {
            for registration in touched.reversed() {
                registration.target.rollback()
            }
            touched.removeAll(keepingCapacity: true)
            phase = .idle
            for hook in middleware { hook.didFail(action, error: error, in: self) }
            throw error
        }

        // `touched` keeps only the targets whose state changed, in order, to publish them: the undo
        // entry is then handed to the history without a copy.
        var entry = HistoryEntry(label: name)
        var changed = 0
        for index in touched.indices {
            let registration = touched[index]
            guard let before = registration.target.commit() else { continue }
            entry.append(registration.target, before)
            touched[changed] = registration
            changed += 1
        }
        touched.removeLast(touched.count - changed)
        if changed > 0 { remember(entry) }
        openGroup?.performed += 1

        phase = .notifying
        for registration in touched { registration.target.publish() }
        if !middleware.isEmpty {
            let names = touched.map(\.target.name)
            for hook in middleware { hook.didDispatch(action, changed: names, in: self) }
        }
        if let commitObserver { commitObserver.didCommit(action, in: self) }
        touched.removeAll(keepingCapacity: true)
        phase = .idle
    }

    private func invoke(_ registration: Registration, _ action: any Action) throws {
        registration.pending = true
        pendingStack.append(registration)
        defer {
            registration.pending = false
            pendingStack.removeLast()
        }
        registration.target.begin()
        touched.append(registration)
        do {
            try registration.target.handle(action, in: self)
        } catch let error as DispatcherError {
            if case .storeFailed = error { throw error }
            throw DispatcherError.storeFailed(store: registration.target.name, action: action.name, underlying: error)
        } catch {
            throw DispatcherError.storeFailed(store: registration.target.name, action: action.name, underlying: error)
        }
        registration.handledGeneration = generation
    }

    private func route(_ name: String) -> [Registration] {
        // Most dispatch loops repeat one action; comparing names is cheaper than hashing one.
        if name == lastRoute.name { return lastRoute.targets }
        if let cached = routes[name] {
            lastRoute = (name, cached)
            return cached
        }
        let targets = registrations.filter { $0.target.handles(name) }
        if routes.count > 4096 { routes.removeAll() }
        routes[name] = targets
        lastRoute = (name, targets)
        return targets
    }

    private func drainFollowUps() {
        guard !draining else { return }
        draining = true
        isFollowUp = true
        defer {
            draining = false
            isFollowUp = false
        }
        var performed = 0
        while let next = followUps.popFirst() {
            performed += 1
            guard performed <= followUpLimit else {
                followUps.removeAll()
                onFollowUpError(next.action, DispatcherError.followUpsDidNotSettle(action: next.action.name, limit: followUpLimit))
                return
            }
            do {
                if let queued = next.group {
                    // The actions a subscriber queued inside `flux.group`: one group, all or nothing.
                    var batch = [next.action]
                    while let first = followUps.first, first.group === queued { batch.append(followUps.removeFirst().action) }
                    try group(queued.label) { for action in batch { try perform(action) } }
                } else {
                    try perform(next.action)
                }
            } catch {
                onFollowUpError(next.action, error)
            }
        }
    }

    // MARK: Undo

    /// Runs `body` so that every action it dispatches undoes as one step labelled `label`, all or nothing.
    ///
    /// Groups nest: an inner group joins the outer one. If `body` throws, every action it dispatched is
    /// rolled back (subscribers hear the restored states) and no undo step remains; the error is rethrown.
    public func group<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        if phase == .notifying, openGroup == nil, queueingGroup == nil {
            // A subscriber's group: its actions are queued now and run later, together.
            let queued = OpenGroup(id: nextGroupID, label: label)
            nextGroupID += 1
            queueingGroup = queued
            defer { queueingGroup = nil }
            do {
                return try body()
            } catch {
                followUps.removeAll { $0.group === queued }
                throw error
            }
        }
        if let outer = openGroup {
            // Joining the outer group: the inner one gathers the states from before its own actions, so
            // that it can roll back alone, and hands them on to the outer one.
            let before = outer.entry, performed = outer.performed
            outer.entry = HistoryEntry(label: outer.label)
            do {
                let result = try body()
                let inner = outer.entry
                outer.entry = before
                outer.entry.merge(inner)
                return result
            } catch {
                let inner = outer.entry
                outer.entry = before
                restore(inner.changes, actions: outer.performed - performed, label: label)
                outer.performed = performed
                throw error
            }
        }
        let group = OpenGroup(id: nextGroupID, label: label)
        openGroup = group
        nextGroupID += 1
        let result: T
        do {
            result = try body()
        } catch {
            openGroup = nil
            restore(group.entry.changes, actions: group.performed, label: label)
            throw error
        }
        openGroup = nil
        if !group.entry.isEmpty { history.record(group.entry) }
        return result
    }

    /// Puts each target back to its state and publishes it: a group's `actions` undone without an undo step.
    private func restore(_ states: [(target: any DispatchTarget, snapshot: Any)], actions: Int, label: String) {
        for (target, state) in states.reversed() { target.restore(state) }
        let outer = phase
        phase = .notifying
        for (target, _) in states { target.publish() }
        if actions > 0 { for hook in middleware { hook.didRollBack(actions, group: label, in: self) } }
        phase = outer
    }

    /// Runs `body`, which may dispatch, undo and redo, all or nothing: when it throws, every store goes
    /// back to its state from before (and is published), the undo history too; the error is rethrown.
    ///
    /// For long work a user may stop half-way, such as replaying a log. Outside a dispatch or group only.
    public func allOrNothing<T>(_ body: () throws -> T) throws -> T {
        guard phase == .idle, openGroup == nil else { throw DispatcherError.historyDuringDispatch }
        let targets = registrations.map(\.target)
        let states = targets.map { $0.snapshot() }
        let steps = history.steps
        do {
            return try body()
        } catch {
            for (target, state) in zip(targets, states) { target.restore(state) }
            history.replaceSteps(undo: steps.undo, redo: steps.redo)
            phase = .notifying
            for target in targets { target.publish() }
            phase = .idle
            throw error
        }
    }

    private func remember(_ entry: consuming HistoryEntry) {
        guard let openGroup else {
            history.record(entry)
            return
        }
        // The group keeps each store's state from before its first action.
        openGroup.entry.merge(entry)
    }

    /// Reverts the last step: every store it touched returns to its state before, and is published.
    ///
    /// - Returns: false when there was nothing to undo.
    @discardableResult
    public func undo() throws -> Bool {
        try travel(.undo)
    }

    /// Re-applies the last undone step.
    ///
    /// - Returns: false when there was nothing to redo.
    @discardableResult
    public func redo() throws -> Bool {
        try travel(.redo)
    }

    private func travel(_ step: HistoryStep) throws -> Bool {
        guard phase == .idle, openGroup == nil else { throw DispatcherError.historyDuringDispatch }
        guard let entry = step == .undo ? history.popUndo() : history.popRedo() else { return false }
        let reverse = entry.swapped()
        if step == .undo { history.pushRedo(reverse) } else { history.pushUndo(reverse) }

        phase = .notifying
        entry.forEachTarget { $0.publish() }
        for hook in middleware { hook.didTravel(step, label: entry.label, in: self) }
        commitObserver?.didTravel(step, in: self)
        phase = .idle
        if !followUps.isEmpty { drainFollowUps() }
        return true
    }
}
