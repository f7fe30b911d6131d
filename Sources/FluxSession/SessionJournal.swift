import Flux

/// Collects what the dispatcher commits between two saves of a session: the journal's new rows, and
/// which stores changed and so must be saved again.
///
/// Runs of identical actions in a row are counted, not stored one by one: a loop dispatching the same
/// action costs an increment per action here and one journal row per save.
final class SessionJournal: Middleware {
    /// A run of identical actions (or one step), waiting to be saved.
    struct Run {
        var entry: ActionLogEntry
        var count: Int
        var stores: [String]
        var lastTime: Double
    }

    /// The runs since the last save, oldest first.
    @exclusivity(unchecked) private(set) var runs: [Run] = []
    /// The stores changed since the last save.
    @exclusivity(unchecked) private(set) var changedStores: Set<String> = []
    /// Whether an undo or redo ran since the last save (it may have changed any store).
    @exclusivity(unchecked) private(set) var travelled = false
    /// Called when an action commits at or past ``deadline``: the session saves then.
    var onDeadline: () -> Void = {}
    /// When the next save is due, in the clock's seconds.
    @exclusivity(unchecked) var deadline = Double.infinity

    private let clock: () -> Double
    @exclusivity(unchecked) private var lastChanged: [String] = []

    init(clock: @escaping () -> Double) {
        self.clock = clock
    }

    func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        let now = clock()
        let group = dispatcher.currentGroup
        let isFollowUp = dispatcher.isFollowUp
        if changed != lastChanged {
            changedStores.formUnion(changed)
            lastChanged = changed
        }
        let last = runs.count - 1
        if last >= 0, case let .action(previous) = runs[last].entry.event, runs[last].entry.isFollowUp == isFollowUp,
           runs[last].entry.group?.id == group?.id, runs[last].stores == changed, sameAction(previous, action) {
            runs[last].count += 1
            runs[last].lastTime = now
        } else {
            runs.append(Run(entry: ActionLogEntry(action: action, time: now, group: group, isFollowUp: isFollowUp),
                            count: 1, stores: changed, lastTime: now))
        }
        if now >= deadline { onDeadline() }
    }

    func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        let now = clock()
        travelled = true
        runs.append(Run(entry: ActionLogEntry(step: step, time: now), count: 1, stores: [], lastTime: now))
        if now >= deadline { onDeadline() }
    }

    /// How many actions and steps wait to be saved.
    var pendingCount: Int { runs.reduce(0) { $0 + $1.count } }

    /// Forgets what was saved (or given up).
    func clear() {
        runs.removeAll(keepingCapacity: true)
        changedStores.removeAll(keepingCapacity: true)
        lastChanged = []
        travelled = false
    }

    /// Where the journal is now, to go back to with ``rewind(to:)``.
    var mark: (runs: Int, lastCount: Int) { (runs.count, runs.last?.count ?? 0) }

    /// Forgets what was journalled since `mark` (a replay that undid itself). The stores stay marked
    /// as changed: saving a store again is harmless.
    func rewind(to mark: (runs: Int, lastCount: Int)) {
        if runs.count > mark.runs { runs.removeLast(runs.count - mark.runs) }
        if mark.runs > 0, runs.count == mark.runs { runs[mark.runs - 1].count = mark.lastCount }
    }
}
