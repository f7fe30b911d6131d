import Flux

/// Collects what the dispatcher commits between two saves of a session: the journal's new rows, and
/// the names of the actions they hold (the stores that handle them are saved again).
///
/// Runs of identical actions in a row are counted, not stored one by one: a loop dispatching the same
/// action costs a comparison and an increment per action here, and one journal row per save.
final class SessionJournal: CommitObserver {
    /// A run of identical actions (or one step), waiting to be saved.
    struct Run {
        var entry: ActionLogEntry
        var count: Int
        var lastTime: Double
    }

    /// The runs since the last save, oldest first.
    @exclusivity(unchecked) private(set) var runs: [Run] = []
    /// The names of the actions committed since the last save.
    @exclusivity(unchecked) private(set) var actionNames: Set<String> = []
    /// Whether an undo, a redo or a setting of states ran since the last save (it may have changed any store).
    @exclusivity(unchecked) private(set) var travelled = false
    /// Called when an action commits at or past ``deadline`` with no group open and no follow-up
    /// queued: the session saves then.
    @exclusivity(unchecked) var onDeadline: () -> Void = {}
    /// When the next save is due, in the clock's seconds.
    @exclusivity(unchecked) var deadline = Double.infinity
    /// Every this many entries, ``takeSnapshot`` encodes every store's state (infinite: never).
    @exclusivity(unchecked) var snapshotInterval = Int.max
    /// Entries journalled since the last snapshot.
    @exclusivity(unchecked) var sinceSnapshot = 0
    /// Every store's state, encoded, right after an entry (see ``snapshotInterval``).
    @exclusivity(unchecked) var takeSnapshot: () -> [EncodedState] = { [] }
    /// Snapshots taken since the last save, each after the first `entries` pending entries: saved in the
    /// same transaction as those entries.
    @exclusivity(unchecked) private(set) var snapshots: [(entries: Int, states: [EncodedState])] = []

    private let clock: () -> Double
    @exclusivity(unchecked) private var lastAction: (any Action)?
    @exclusivity(unchecked) private var lastType: (any Action.Type)?
    /// Whether the last run's action type has no stored fields: then its type alone makes an action the same.
    @exclusivity(unchecked) private var lastHasNoFields = false
    @exclusivity(unchecked) private var lastGroupID: Int?
    @exclusivity(unchecked) private var lastIsFollowUp = false
    @exclusivity(unchecked) private var lastIsEffect = false
    /// Runs before this index are not continued: a step, or a rewind, came after them.
    @exclusivity(unchecked) private var runsBefore = 0
    /// Where the journal was when each running ``Dispatcher/allOrNothing(_:)`` began.
    @exclusivity(unchecked) private var marks: [(runs: Int, lastCount: Int)] = []

    init(clock: @escaping () -> Double) {
        self.clock = clock
    }

    func didCommit(_ action: any Action, in dispatcher: Dispatcher) {
        let now = clock()
        let group = dispatcher.currentGroup
        let isFollowUp = dispatcher.isFollowUp, isEffect = dispatcher.isEffect
        // The last run's action, group and flag are kept apart from `runs`: reading them there would
        // copy the whole run on every action.
        if runs.count > runsBefore, lastGroupID == group?.id, lastIsFollowUp == isFollowUp, lastIsEffect == isEffect,
           type(of: action) == lastType, lastHasNoFields || sameAction(lastAction!, action) {
            runs[runs.count - 1].count += 1
            runs[runs.count - 1].lastTime = now
        } else {
            var entry = ActionLogEntry(action: action, time: now, group: group, isFollowUp: isFollowUp)
            entry.isEffect = isEffect
            runs.append(Run(entry: entry, count: 1, lastTime: now))
            actionNames.insert(action.name)
            lastAction = action
            lastType = type(of: action)
            lastHasNoFields = hasNoFields(action)
            lastGroupID = group?.id
            lastIsFollowUp = isFollowUp
            lastIsEffect = isEffect
        }
        sinceSnapshot += 1
        if sinceSnapshot >= snapshotInterval { snapshot() }
        if now >= deadline, dispatcher.isSettled { onDeadline() }
    }

    /// Keeps every store's state right after the last entry, to be saved with it.
    func snapshot() {
        sinceSnapshot = 0
        snapshots.append((pendingCount, takeSnapshot()))
    }

    /// Drops the snapshots taken after entries that are no longer pending (rolled back).
    private func dropSnapshotsPastEnd() {
        guard !snapshots.isEmpty else { return }
        let pending = pendingCount
        snapshots.removeAll { $0.entries > pending }
    }

    func didTravel(_ step: HistoryStep, in dispatcher: Dispatcher) {
        appendAlone(ActionLogEntry(step: step, time: clock()), in: dispatcher)
    }

    func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher) {
        appendAlone(ActionLogEntry(states: states, label: label, time: clock()), in: dispatcher)
    }

    /// Journals a step or a setting of states: a run of its own, which no action continues; it may
    /// have changed any store.
    private func appendAlone(_ entry: ActionLogEntry, in dispatcher: Dispatcher) {
        travelled = true
        runs.append(Run(entry: entry, count: 1, lastTime: entry.time))
        runsBefore = runs.count
        // A replay from an earlier snapshot could not take back a step made before it.
        snapshot()
        if entry.time >= deadline, dispatcher.isSettled { onDeadline() }
    }

    func didRollBack(_ actions: Int, in dispatcher: Dispatcher) {
        var left = actions
        while left > 0, runs.count > runsBefore {
            let taken = min(left, runs[runs.count - 1].count)
            runs[runs.count - 1].count -= taken
            left -= taken
            if runs[runs.count - 1].count == 0 { runs.removeLast() }
        }
        // The next action starts a run of its own rather than joining one it may not match.
        lastAction = nil
        lastType = nil
        runsBefore = runs.count
        dropSnapshotsPastEnd()
    }

    /// How many actions and steps wait to be saved.
    var pendingCount: Int { runs.reduce(0) { $0 + $1.count } }

    /// Forgets what was saved (or given up).
    func clear() {
        runs.removeAll(keepingCapacity: true)
        actionNames.removeAll(keepingCapacity: true)
        snapshots.removeAll()
        lastAction = nil
        lastType = nil
        runsBefore = 0
        travelled = false
    }

    func willRunAllOrNothing(in dispatcher: Dispatcher) {
        marks.append(mark)
    }

    func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        guard let mark = marks.popLast(), !kept else { return }
        rewind(to: mark)
    }

    /// Where the journal is now, to go back to with ``rewind(to:)``.
    private var mark: (runs: Int, lastCount: Int) { (runs.count, runs.last?.count ?? 0) }

    /// Forgets what was journalled since `mark` (a replay that undid itself). Its action names stay:
    /// saving a store again is harmless.
    private func rewind(to mark: (runs: Int, lastCount: Int)) {
        if runs.count > mark.runs { runs.removeLast(runs.count - mark.runs) }
        if mark.runs > 0, runs.count == mark.runs { runs[mark.runs - 1].count = mark.lastCount }
        runsBefore = runs.count
        dropSnapshotsPastEnd()
    }
}
