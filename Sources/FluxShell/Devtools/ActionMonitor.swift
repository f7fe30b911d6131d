import Flux

/// Watches every dispatch for the devtools: keeps, beside the dispatcher's undo history, which actions
/// each step holds and which stores it changed (for `:history`), and — while `:log` or `:watch` need
/// it — each store's state before the action, to say what the action changed.
///
/// States are read only while ``wantsStates`` says so: an unwatched shell pays for a list append per
/// action, not for encoding states.
final class ActionMonitor: Middleware {
    /// One undo step as the user took it: an action, or a group of them.
    struct Step {
        let label: String
        /// The step's first actions (a group keeps at most ``keptActions``).
        var actions: [any Action]
        /// How many actions the step holds.
        var count = 1
        /// The stores it changed, in the order they first changed.
        var stores: [String]
        let group: Int?
    }

    /// What one action did: the changed paths of each store that changed, or why it failed.
    struct Report {
        let action: any Action
        let diffs: [StateDiff]
        let error: (any Error)?
    }

    /// Whether states are taken before each action (`:log` on, or a view watched).
    var wantsStates: () -> Bool = { false }
    /// Told of every action while states are taken and ``wantsReports`` says so (`:log` on; a watch
    /// alone reads its diff through ``pendingDiff(of:)``).
    var onReport: ((Report) -> Void)?
    var wantsReports: () -> Bool = { true }

    /// The most actions a group's step keeps, so that a group of a million actions costs no more.
    static let keptActions = 100

    private(set) var done: [Step] = []
    private(set) var undone: [Step] = []
    /// The steps when each running all-or-nothing work began.
    private var saved: [(done: [Step], undone: [Step])] = []
    /// The action being dispatched and every store's state before it, while states are taken.
    private(set) var pending: (action: any Action, before: [String: StateValue])?

    func willDispatch(_ action: any Action, in dispatcher: Dispatcher) throws {
        pending = wantsStates() ? (action, Self.states(of: dispatcher.stores)) : nil
    }

    func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        defer { pending = nil }
        if !changed.isEmpty { remember(action, changed: changed, in: dispatcher) }
        guard let pending, let onReport, wantsReports() else { return }
        onReport(Report(action: action, diffs: changed.compactMap { name in
            dispatcher.store(named: name).flatMap { diff(of: $0, before: pending.before[name]) }
        }, error: nil))
    }

    func didFail(_ action: any Action, error: any Error, in dispatcher: Dispatcher) {
        defer { pending = nil }
        guard pending != nil, let onReport, wantsReports() else { return }
        onReport(Report(action: action, diffs: [], error: error))
    }

    func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        switch step {
        case .undo: if let last = done.popLast() { undone.append(last) }
        case .redo: if let last = undone.popLast() { done.append(last) }
        }
    }

    /// States set as one step (`:goto`): a step of no action.
    func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher) {
        guard dispatcher.history.limit > 0 else { return }
        done.append(Step(label: label, actions: [], count: 0, stores: states.map(\.target.name), group: nil))
        undone.removeAll()
    }

    /// A failed group took back its last `actions`: so does its step (gone when nothing of it stays).
    func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher) {
        guard var last = done.popLast(), last.group != nil else { return }
        last.count -= actions
        guard last.count > 0 else { return }
        last.actions = Array(last.actions.prefix(last.count))
        done.append(last)
    }

    func willRunAllOrNothing(in dispatcher: Dispatcher) {
        saved.append((done, undone))
    }

    /// Work that failed is put back by the dispatcher, history and all: so are the steps.
    func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        guard let steps = saved.popLast(), !kept else { return }
        (done, undone) = steps
    }

    /// What the action being dispatched changed in `store` so far, if states were taken before it.
    func pendingDiff(of store: any StoreProtocol) -> (action: any Action, diff: StateDiff)? {
        guard let pending, let diff = diff(of: store, before: pending.before[store.name]) else { return nil }
        return (pending.action, diff)
    }

    /// Puts back the steps of a history restored from a session, oldest first (undone ones after the
    /// others, as ``steps(of:)`` gives them); the first `undoCount` are done.
    func restoreSteps(_ steps: [Step], undoCount: Int) {
        done = Array(steps.prefix(undoCount))
        undone = steps.dropFirst(undoCount).reversed()
    }

    /// The steps of `history`, oldest first (undone ones after the others), when this monitor saw
    /// them all; nil when the history was filled another way (a session restored it).
    func steps(of history: History) -> [Step]? {
        let undoLabels = history.undoLabels
        let kept = done.suffix(undoLabels.count)
        guard kept.map(\.label) == undoLabels, undone.reversed().map(\.label) == history.redoLabels else { return nil }
        return kept + undone.reversed()
    }

    private func remember(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        let group = dispatcher.currentGroup
        if let group, var last = done.last, last.group == group.id {
            if last.actions.count < Self.keptActions { last.actions.append(action) }
            last.count += 1
            last.stores += changed.filter { !last.stores.contains($0) }
            done[done.count - 1] = last
            return
        }
        guard dispatcher.history.limit > 0 else { return }
        done.append(Step(label: group?.label ?? action.name, actions: [action], stores: changed, group: group?.id))
        // Trimmed in batches, so that a long run of actions does not move the whole list at each one.
        let limit = dispatcher.history.limit
        if done.count > 2 * limit { done.removeFirst(done.count - limit) }
        undone.removeAll()
    }

    private func diff(of store: any StoreProtocol, before: StateValue?) -> StateDiff? {
        guard let before, let after = try? StateValue(encoding: store.encodableState) else { return nil }
        return StateDiff(store: store.name, old: before, new: after)
    }

    /// Every store's state as data; a store whose state does not encode is left out.
    static func states(of stores: [any StoreProtocol]) -> [String: StateValue] {
        var states: [String: StateValue] = [:]
        for store in stores {
            states[store.name] = try? StateValue(encoding: store.encodableState)
        }
        return states
    }
}
