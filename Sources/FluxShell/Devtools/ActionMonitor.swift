import Flux

/// The devtools' view of dispatches: while `:log` or `:watch` needs it, each store's state before the
/// action, to say what the action changed; and, from the undo history, which actions each step holds
/// and which stores it changed (for `:history` and `:show`).
///
/// What `:log` shows of committed actions comes from the dispatcher's ``SettledCommits``, as the journal,
/// `:record` and `flux.on` read them: an action's changes are taken as it commits, and shown once it
/// settles — a group's when it ends, never a group's that was rolled back. A refused or failed action
/// is shown at once (``didFail(_:error:in:)``): it never commits.
///
/// The history keeps a step's actions as it records the step (``StepActions``), so the monitor keeps
/// nothing per dispatch: the shell puts it among the dispatcher's middleware, and its reports on the
/// stream, only while a log or a watch is on (``Shell/updateMonitor()``), and an unwatched shell pays
/// nothing for it.
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
    /// The history whose steps ``restoreSteps(_:undoCount:)`` annotates.
    weak var history: History?

    /// The most actions a group's step keeps, so that a group of a million actions costs no more.
    static let keptActions = StepActions.kept

    /// The action being dispatched and every store's state before it, while states are taken.
    private(set) var pending: (action: any Action, before: [String: StateValue])?

    func willDispatch(_ action: any Action, in dispatcher: Dispatcher) throws {
        pending = wantsStates() ? (action, Self.states(of: dispatcher.stores)) : nil
    }

    /// The stream `:log`'s reports come from, and the subscription, while reports are wanted.
    private var reports: (stream: SettledCommits, subscription: Int)?

    /// Reports every action that settles on `dispatcher` from now on to ``onReport`` (`:log on`): its
    /// changes are taken as it commits (the states before it were taken in ``willDispatch(_:in:)``).
    /// The dispatcher tells the stream before any middleware: it captures an action before the
    /// monitor's ``didDispatch(_:changed:in:)`` lets its states go.
    func startReports(on dispatcher: Dispatcher) {
        guard reports == nil else { return }
        let stream = SettledCommits.of(dispatcher)
        let subscription = stream.subscribe(capturing: { [weak self, weak dispatcher] commit -> [StateDiff]? in
            guard let self, let dispatcher, let pending, commit.action != nil else { return nil }
            return commit.changed.compactMap { name in
                dispatcher.store(named: name).flatMap { self.diff(of: $0, before: pending.before[name]) }
            }
        }) { [weak self] commit, diffs in
            guard let self, let action = commit.action, let diffs, let onReport, wantsReports() else { return }
            onReport(Report(action: action, diffs: diffs, error: nil))
        }
        reports = (stream, subscription)
    }

    /// Stops reporting settled actions (`:log off`).
    func stopReports() {
        guard let reports else { return }
        reports.stream.unsubscribe(reports.subscription)
        self.reports = nil
    }

    func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        pending = nil
    }

    func didFail(_ action: any Action, error: any Error, in dispatcher: Dispatcher) {
        defer { pending = nil }
        guard pending != nil, let onReport, wantsReports() else { return }
        onReport(Report(action: action, diffs: [], error: error))
    }

    /// What the action being dispatched changed in `store` so far, if states were taken before it.
    func pendingDiff(of store: any StoreProtocol) -> (action: any Action, diff: StateDiff)? {
        guard let pending, let diff = diff(of: store, before: pending.before[store.name]) else { return nil }
        return (pending.action, diff)
    }

    /// Puts back what `:history` showed of each step of a history restored from a session, oldest first
    /// (undone ones after the others, as ``steps(of:)`` gives them); the first `undoCount` are done.
    func restoreSteps(_ steps: [Step], undoCount: Int) {
        history?.setActions(steps.map { step in
            step.count > 0 ? StepActions(step.actions, count: step.count, isGroup: step.group != nil) : nil
        })
    }

    /// The steps of `history`, oldest first (undone ones after the others), as the history recorded them.
    func steps(of history: History) -> [Step]? {
        let (undo, redo) = history.steps
        return (undo + redo.reversed()).map { entry in
            let actions = entry.actions
            return Step(label: entry.label, actions: actions.all, count: actions.count,
                        stores: entry.changes.map(\.target.name), group: actions.isGroup ? -1 : nil)
        }
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
