import CFluxLua
import CLua
import Flux

/// A store defined by a script with `flux.store{…}`: its state is a Lua table, its handlers Lua
/// functions, and it takes part in dispatch with the same rules as a Swift store (rollback when a
/// handler fails, `waitFor`, undo, the action log).
///
/// A handler receives a draft of the state and changes it in place, or returns a new state; a state
/// equal to the old one (deep equality) is no change. The result is frozen (`flux_pushinvoke`, in
/// CFluxLua's draft.c), so a published state table is never changed again: undo keeps references to old
/// tables, and read-only views of them never change under a script that keeps one.
final class LuaStore: StoreProtocol {
    let name: String
    /// Who defined it: only they may define it again.
    let owner: Owner
    /// The dispatcher may keep the store after its host is gone; it then refuses to handle. Through the
    /// host's ``HostReference``, not a weak reference (which would slow every retain of the host).
    private let hostReference: HostReference
    var host: FluxHost? { hostReference.host }
    var handlers: [String: LuaRef] {
        didSet {
            lastName = nil
            lastRoute = nil
            noteHandlers(from: oldValue)
        }
    }
    /// For a store `flux.derived` defined: its sources and how its state is computed from them.
    var derivation: LuaDerivation?
    /// Whether the store is in dispatch: its handlers and payloads are then in the host's ``LuaActionIndex``.
    var isRegistered = false
    var waitFor: [String]
    /// The payload fields its actions declare, by action name.
    var payloads: [String: LuaPayloadDeclaration] = [:] {
        didSet { notePayloads(from: oldValue) }
    }
    /// The version of its state's shape (`flux.store{version = 2}`), part of its ``stateFormat``.
    var version: Int?
    /// `migrate(old_state, old_version)`: converts a state saved in another shape (`flux.store{migrate = …}`).
    var migrate: LuaRef?

    private var current: LuaRef
    private var checkpoint: LuaRef
    private var published: LuaRef
    private let observers = ObserverList<LuaRef>()

    /// Its initial state's fields and their types (``LuaStore/shape(at:on:)``): part of its
    /// ``stateFormat``, so that a saved state is not read as a definition with other fields.
    let stateShape: String

    init(name: String, owner: Owner, state: LuaRef, shape: String, handlers: [String: LuaRef], waitFor: [String], host: FluxHost) {
        self.name = name
        stateShape = shape
        self.owner = owner
        hostReference = host.reference
        self.handlers = handlers
        self.waitFor = waitFor
        current = state
        checkpoint = state
        published = state
    }

    /// The state observers last heard.
    var publishedState: LuaRef { published }

    /// The read-only view of the state `viewed`: made once per state, so every subscriber of a change (and
    /// every view provider rendering it) shares one, and no weak cache of views grows by one entry per
    /// change. Each new view takes the registry slot of the one before.
    private var view: LuaRef?
    private var viewed: LuaRef?

    /// [..] -> [.., view]. The read-only view of `table`, one of this store's states.
    func pushView(of table: LuaRef, on lua: LuaStack) throws {
        try lua.ensureSpace(3)
        pushView(of: table, onPrepared: lua)
    }

    /// ``pushView(of:on:)`` onto a stack already checked to have room for three more values (as
    /// `LuaSubscribers.prepare` leaves it): a subscriber's change checks the stack once.
    func pushView(of table: LuaRef, onPrepared lua: LuaStack) {
        if let view, viewed === table {
            lua.push(view)
            return
        }
        // Into the registry slot of the view before, as `LuaStack.assign` does, without its checks: both
        // refs are this store's.
        flux_newview(lua.state, table.id, view?.id ?? 0)
        if view == nil { view = lua.ref(at: -1) }
        viewed = table
    }

    // MARK: Dispatch

    func handles(_ actionName: String) -> Bool { handlers[actionName] != nil }

    func begin() { checkpoint = current }

    /// A handler, the name of its action as a Lua string, and whether the handler can see the action
    /// (`flux_takesaction`): one declared `function(state)` is not given an action table it cannot read.
    /// A class: handing one out is one retain, not one per ref.
    private final class Route {
        let handler: LuaRef
        let type: LuaRef?
        let takesAction: Bool
        init(handler: LuaRef, type: LuaRef?, takesAction: Bool) {
            self.handler = handler
            self.type = type
            self.takesAction = takesAction
        }
    }

    /// The route of the action handled last, and that action's name: a run of one action neither hashes
    /// its name into `handlers` nor makes a Lua string of it again. (Two properties, not an optional
    /// tuple: reading the tuple copies both halves.)
    private var lastName: String?
    private var lastRoute: Route?

    /// `action`'s route, or nil when this store does not handle it.
    private func route(_ action: String) throws -> Route? {
        if lastName == action, let lastRoute { return lastRoute }
        guard let handler = handlers[action] else { return nil }
        guard let lua = host?.activeStack else {
            let route = Route(handler: handler, type: nil, takesAction: true)
            lastName = action
            lastRoute = route
            return route
        }
        try lua.ensureSpace(1)
        lua.push(action)
        let type = lua.ref(at: -1)
        lua.pop()
        lua.push(handler)
        let route = Route(handler: handler, type: type, takesAction: flux_takesaction(lua.state) != 0)
        lastName = action
        lastRoute = route
        return route
    }

    func handle(_ action: any Action, in dispatcher: Dispatcher) throws {
        try handle(action, named: action.name, in: dispatcher)
    }

    /// Handles `action`, whose name is `name`; `dispatcher` is the host's when nil.
    private func handle(_ action: any Action, named name: String, in dispatcher: Dispatcher?) throws {
        if let derivation { return try recompute(derivation, for: name) }
        // Held while other stores run first and while the handler runs: either may define this store again.
        guard let route = try route(name) else { return }
        if !waitFor.isEmpty {
            guard let dispatcher = dispatcher ?? host?.dispatcher else { throw FluxHostError.closed }
            try dispatcher.waitFor(try waitFor.map { other in
                guard let token = dispatcher.token(named: other) else {
                    throw FluxScriptError("wait_for names no store '\(other)'")
                }
                return token
            })
        }
        guard let host = hostReference.host else { throw FluxHostError.closed }
        do {
            try call(route, for: action, host: host)
        } catch let error as LuaError {
            throw FluxScriptError(error.message, traceback: error.traceback)
        }
    }

    /// The last change a handler made (the states before and after it), with the undo cost of the state
    /// before beside the one after, as `invoke` measured it: what ``cost(of:)`` answers for that pair
    /// without walking the state again. Held apart, so asking for it copies and retains nothing. The state
    /// after by identity alone: it is one of `stateRefs`, which keep it, and a ref of theirs takes a new
    /// state only in `call`, which then sets this pair again.
    private var stepBefore: LuaRef?
    private var stepAfter: ObjectIdentifier?
    private var stepBytes = 0

    /// Runs the handler of `route` on a draft of the state; a new state becomes the current one. One call
    /// into C (`flux_callinvoke`) pushes what invoke needs from the registry and calls it protected.
    private func call(_ route: Route, for action: any Action, host: FluxHost) throws {
        try call(route.handler, host: host, actionName: action.name) { lua in
            if route.takesAction { try host.pushAction(action, type: route.type, on: lua) }
            return route.takesAction
        }
    }

    /// Recomputes a derived store's state: `compute` handed its sources' states as they are in this dispatch.
    private func recompute(_ derivation: LuaDerivation, for actionName: String) throws {
        guard let host = hostReference.host else { throw FluxHostError.closed }
        do {
            try call(derivation.handler, host: host, actionName: actionName) { lua in
                try derivation.pushSources(host: host, on: lua)
                return true
            }
        } catch let error as LuaError {
            throw FluxScriptError(error.message, traceback: error.traceback)
        }
    }

    /// Runs `handler` on a draft of the state, with the argument `pushArgument` pushes when it says so.
    private func call(_ handler: LuaRef, host: FluxHost, actionName: String, pushArgument: (LuaStack) throws -> Bool) throws {
        let lua = host.activeStack
        // `current` unless something replaced it while the handler ran (checked below).
        let before = current
        let base = lua.top
        defer { lua.top = base }
        try lua.ensureSpace(6)
        let takesArgument = try pushArgument(lua)
        var stop: Int32 = 0
        var cost: Int64 = 0
        let status = flux_callinvoke(lua.state, host.invoke.id, handler.id, current.id, takesArgument ? 1 : 0, &stop, &cost)
        guard status == LUA_OK else { throw LuaError(status: status, stop: stop, popping: lua) }
        switch lua.type(at: -1) { // [.., message handler, new state]
        case .table:
            let after = stateRef(poppingTopOf: lua)
            // A state replaced while the handler ran has no measured pair: its cost is walked when asked.
            stepBefore = current === before ? current : nil
            stepAfter = ObjectIdentifier(after)
            stepBytes = Int(cost)
            current = after
        case .nil, .none: break // no change, or a state equal to the old one
        case let other:
            throw FluxScriptError(derivation != nil ? "compute of derived store '\(name)' must return its state table, got \(other.name)"
                                  : "handler for '\(actionName)' must return the new state table or nothing, got \(other.name)")
        }
    }

    /// The refs of the states handlers made, visited in turn from `next`: a ref only this list holds
    /// belongs to a state nothing keeps any more (the undo history dropped it), and a new state takes its
    /// registry slot — no allocation, no `luaL_ref` and no `luaL_unref` per dispatch. A ref anything else
    /// holds (an undo step, a rollback, a kept snapshot) is never reused, so a snapshot always holds the
    /// state it was taken of. The list grows to the most states kept at once, and the tables of states
    /// dropped stay until their refs are reused: never more than were kept at once.
    private var stateRefs = StateRefs()

    /// The refs and where the next look starts, together: a dispatch finds a free one in one access.
    private struct StateRefs {
        var refs: [LuaRef] = []
        var next = 0

        /// A ref only this list holds, among the ``refsLookedAt`` from `next` on (which moves past those
        /// looked at); nil when none is.
        mutating func reusable() -> LuaRef? {
            let count = refs.count
            var looked = 0
            while looked < LuaStore.refsLookedAt, looked < count {
                looked += 1
                let at = next
                next = at + 1 == count ? 0 : at + 1
                if isKnownUniquelyReferenced(&refs[at]) { return refs[at] }
            }
            return nil
        }
    }

    /// How many refs from `next` on a new state looks at before it makes a new one: more than one, so a
    /// ref kept long (a snapshot held while many actions run) does not make a new one every round.
    private static let refsLookedAt = 2

    /// A ref holding the table on top, a state a handler just made, popped.
    private func stateRef(poppingTopOf lua: LuaStack) -> LuaRef {
        if let ref = stateRefs.reusable() {
            // Into its registry slot, as `LuaStack.assign` does, without its checks: the ref is this
            // store's and the value a table.
            lua_rawseti(lua.state, flux_registryindex(), lua_Integer(ref.id))
            return ref
        }
        let ref = LuaRef(popping: lua)
        stateRefs.refs.append(ref)
        return ref
    }

    /// The state from `begin()` with its cost, to keep for undo when `keeping`, in the box in `spare` when
    /// that can be reused; nil when the state did not change. What the generic lane does through
    /// ``commit()`` and ``cost(of:)``, without boxing the state in an `Any`.
    private func keepCheckpoint(_ keeping: Bool, reusing spare: inout KeptState?) -> StoreLane.Kept? {
        if hasDispatchEffects { host?.endDispatchEffects(kept: true) }
        guard current !== checkpoint else { return nil }
        guard keeping else { return (nil, 0) }
        // The handler's own pair, as `cost(keeping:)` answers it, checked here: the call would retain the state.
        let cost = stepAfter == ObjectIdentifier(current) && stepBefore === checkpoint ? stepBytes : cost(keeping: checkpoint)
        if let box = reusable(&spare, as: KeptValue<LuaRef>.self) {
            box.hold(checkpoint)
            return (box, cost)
        }
        return (KeptValue(checkpoint), cost)
    }

    func rollback() {
        current = checkpoint
        if hasDispatchEffects { host?.endDispatchEffects(kept: false) }
    }
    func commit() -> Any? {
        if hasDispatchEffects { host?.endDispatchEffects(kept: true) }
        return current === checkpoint ? nil : checkpoint
    }
    /// Whether a handler did more than change states during the dispatch now (``DispatchEffects``).
    var hasDispatchEffects = false
    func snapshot() -> Any { current }

    func restore(_ snapshot: Any) {
        if let snapshot = snapshot as? LuaRef { current = snapshot }
    }

    /// What keeping `snapshot` costs: for the handler's own pair of states, what its walk measured. A
    /// single store's step takes its cost from ``keepCheckpoint(_:reusing:)``; groups and journal travel
    /// ask here.
    func cost(of snapshot: Any) -> Int {
        guard let table = snapshot as? LuaRef else { return 0 }
        return cost(keeping: table)
    }

    /// What keeping `table` beside the current state costs: what the handler's walk measured when it is
    /// that pair, else a walk of its own.
    private func cost(keeping table: LuaRef) -> Int {
        if stepAfter == ObjectIdentifier(current), stepBefore === table { return stepBytes }
        return host.map { $0.activeStack.tableCost(of: table, sharingWith: current) } ?? 0
    }

    func publish() {
        guard published !== current else { return }
        published = current
        observers.send(current)
    }

    // MARK: Observing

    var actionNames: [String] { handlers.keys.sorted() }
    var handlesEveryAction: Bool { derivation != nil }
    var encodableState: any Encodable { LuaTableState(store: self, table: published) }

    func subscribeEncodable(_ observer: @escaping (any Encodable) -> Void) -> StoreSubscription {
        subscribeTable { [weak self] in observer(LuaTableState(store: self, table: $0)) }
    }

    /// Calls `observer` with the state table now and after every change.
    func subscribeTable(_ observer: @escaping (LuaRef) -> Void) -> StoreSubscription {
        let entry = observers.add(observer)
        observer(published)
        return StoreSubscription { [self] in observers.cancel(entry) }
    }
}

/// The dispatcher's operations on a Lua store: the action's name as the dispatcher read it, and the state
/// kept for undo typed, in a box the history reuses, where the generic lane asks the store's witnesses
/// and boxes the state in an `Any`.
extension LuaStore: StoreLaneProviding {
    // Immutable, and its closures capture nothing.
    nonisolated(unsafe) private static let operations = StoreLane(
        handle: { object, action, name, _ in
            let store = unsafeDowncast(object, to: LuaStore.self)
            store.begin()
            try store.handle(action, named: name, in: nil)
        },
        commit: { object, keeping, spare in unsafeDowncast(object, to: LuaStore.self).keepCheckpoint(keeping, reusing: &spare) },
        publish: { unsafeDowncast($0, to: LuaStore.self).publish() },
        changed: { object in
            let store = unsafeDowncast(object, to: LuaStore.self)
            return store.current !== store.checkpoint
        }
    )

    var lane: StoreLane { Self.operations }
}

/// A Lua store's state table as an encodable value: what the shell prints and the action log compares.
struct LuaTableState: Encodable {
    /// Weak: a state printed or kept for a view does not keep its store (nor its host) alive.
    weak var store: LuaStore?
    let table: LuaRef

    func encode(to encoder: any Encoder) throws {
        guard let host = store?.host else {
            throw EncodingError.invalidValue(table, .init(codingPath: encoder.codingPath, debugDescription: "the flux host is closed"))
        }
        let lua = host.activeStack
        lua.push(table)
        let value = lua.value(at: -1)
        lua.pop()
        try value.encode(to: encoder)
    }
}

/// An error in how a script uses the `flux` module, or a Lua error inside a store's handler; its
/// message is shown as it is, and the traceback (if any) where the whole error is reported.
struct FluxScriptError: Error, CustomStringConvertible {
    let description: String
    var traceback: String?
    init(_ description: String, traceback: String? = nil) {
        self.description = description
        self.traceback = traceback
    }
}
