import Flux

/// Collects what the dispatcher commits between two saves of a session: the journal's new rows, and
/// the names of the actions they hold (the stores that handle them are saved again).
///
/// Runs of identical actions in a row are counted, not stored one by one: a loop dispatching the same
/// action costs a comparison and an increment per action here, and one journal row per save.
///
/// What changes at each action lives in one value (``Pending``), changed by one mutating call per
/// action: the class's properties are each an access the runtime checks for exclusivity, and a
/// dispatch crosses a handful of them, not one per field.
final class SessionJournal: CommitObserver {
    /// A run of identical actions (or one step), waiting to be saved.
    struct Run {
        var entry: ActionLogEntry
        var count: Int
        var lastTime: Double
    }

    /// Everything an action changes here, in one value.
    struct Pending {
        /// The runs since the last save, oldest first.
        var runs: [Run] = []
        /// The names of the actions committed since the last save.
        var actionNames: Set<String> = []
        /// Whether an undo, a redo or a setting of states ran since the last save (it may have changed any store).
        var travelled = false
        /// When the next save is due, in the clock's seconds.
        var deadline = Double.infinity
        /// Every this many entries, a snapshot is taken (infinite: never).
        var snapshotInterval = Int.max
        /// Entries journalled since the last snapshot.
        var sinceSnapshot = 0
        var lastAction: (any Action)?
        var lastType: (any Action.Type)?
        /// How actions of `lastType` are compared (``sameness(of:)``), kept while runs of that type follow.
        var lastSameness: (any Action, any Action) -> Bool = { _, _ in false }
        /// The name of the last run's action, already in `actionNames`.
        var lastName = ""
        var lastGroupID: Int?
        var lastIsFollowUp = false
        var lastIsEffect = false
        /// Runs before this index are not continued: a step, or a rewind, came after them.
        var runsBefore = 0

        /// Journals `action`; returns whether a snapshot is due and whether the save's deadline passed.
        mutating func commit(_ action: any Action, now: Double, group: (id: Int, label: String)?, isFollowUp: Bool,
                             isEffect: Bool) -> (snapshot: Bool, deadline: Bool) {
            if runs.count > runsBefore, lastGroupID == group?.id, lastIsFollowUp == isFollowUp, lastIsEffect == isEffect,
               type(of: action) == lastType, lastSameness(lastAction!, action) {
                runs[runs.count - 1].count += 1
                runs[runs.count - 1].lastTime = now
            } else {
                var entry = ActionLogEntry(action: action, time: now, group: group, isFollowUp: isFollowUp)
                entry.isEffect = isEffect
                runs.append(Run(entry: entry, count: 1, lastTime: now))
                let name = action.name
                if name != lastName {
                    actionNames.insert(name)
                    lastName = name
                }
                if type(of: action) != lastType { lastSameness = sameness(of: action) }
                lastAction = action
                lastType = type(of: action)
                lastGroupID = group?.id
                lastIsFollowUp = isFollowUp
                lastIsEffect = isEffect
            }
            sinceSnapshot += 1
            return (sinceSnapshot >= snapshotInterval, now >= deadline)
        }

        /// How many actions and steps wait to be saved.
        var count: Int { runs.reduce(0) { $0 + $1.count } }
    }

    private(set) var pending = Pending()
    /// Called when an action commits at or past ``deadline`` with no group open and no follow-up
    /// queued: the session saves then.
    var onDeadline: () -> Void = {}
    /// Every store's state, encoded, right after an entry (see ``snapshotInterval``).
    var takeSnapshot: () -> [EncodedState] = { [] }
    /// Snapshots taken since the last save, each after the first `entries` pending entries: saved in the
    /// same transaction as those entries.
    private(set) var snapshots: [(entries: Int, states: [EncodedState])] = []

    private let clock: () -> Double
    /// Where the journal was when each running ``Dispatcher/allOrNothing(_:)`` began.
    private var marks: [(runs: Int, lastCount: Int)] = []
    /// Where the runs of a long replay go while it runs (see ``SessionJournalSpill``); nil: memory.
    var spill: SessionJournalSpill?
    /// How many actions and steps of the pending ones are in ``spill``: saved before ``runs``.
    private(set) var spilledCount = 0

    init(clock: @escaping () -> Double) {
        self.clock = clock
    }

    /// The runs since the last save, oldest first.
    var runs: [Run] { pending.runs }
    /// The names of the actions committed since the last save.
    var actionNames: Set<String> { pending.actionNames }
    /// Whether an undo, a redo or a setting of states ran since the last save.
    var travelled: Bool { pending.travelled }
    /// When the next save is due, in the clock's seconds.
    var deadline: Double {
        get { pending.deadline }
        set { pending.deadline = newValue }
    }
    /// Every this many entries, ``takeSnapshot`` encodes every store's state (infinite: never).
    var snapshotInterval: Int {
        get { pending.snapshotInterval }
        set { pending.snapshotInterval = newValue }
    }
    /// Entries journalled since the last snapshot.
    var sinceSnapshot: Int {
        get { pending.sinceSnapshot }
        set { pending.sinceSnapshot = newValue }
    }

    func didCommit(_ action: any Action, in dispatcher: Dispatcher) {
        let due = pending.commit(action, now: clock(), group: dispatcher.currentGroup, isFollowUp: dispatcher.isFollowUp,
                                      isEffect: dispatcher.isEffect)
        if pending.runs.count >= SessionJournalSpill.threshold { spillRuns() }
        if due.snapshot { snapshot() }
        if due.deadline, dispatcher.isSettled { onDeadline() }
    }

    /// Keeps every store's state right after the last entry, to be saved with it.
    func snapshot() {
        pending.sinceSnapshot = 0
        snapshots.append((pendingCount, takeSnapshot()))
    }

    /// Drops the snapshots taken after entries that are no longer pending (rolled back).
    private func dropSnapshotsPastEnd() {
        guard !snapshots.isEmpty else { return }
        let count = pendingCount
        snapshots.removeAll { $0.entries > count }
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
        pending.travelled = true
        pending.runs.append(Run(entry: entry, count: 1, lastTime: entry.time))
        pending.runsBefore = pending.runs.count
        // A replay from an earlier snapshot could not take back a step made before it.
        snapshot()
        if entry.time >= pending.deadline, dispatcher.isSettled { onDeadline() }
    }

    func didRollBack(_ actions: Int, in dispatcher: Dispatcher) {
        rollBack(actions)
        dropSnapshotsPastEnd()
    }

    private func rollBack(_ actions: Int) {
        var left = actions
        while left > 0, pending.runs.count > pending.runsBefore {
            let last = pending.runs.count - 1
            let taken = min(left, pending.runs[last].count)
            pending.runs[last].count -= taken
            left -= taken
            if pending.runs[last].count == 0 { pending.runs.removeLast() }
        }
        // The next action starts a run of its own rather than joining one it may not match.
        pending.lastAction = nil
        pending.lastType = nil
        pending.runsBefore = pending.runs.count
    }

    /// How many actions and steps wait to be saved.
    var pendingCount: Int { spilledCount + pending.count }

    /// Moves every run but the last (which the next action may continue) into ``spill``: only inside a
    /// replay (all-or-nothing work, not nested) that began with nothing pending, so that what is
    /// spilled is the replay's and comes first at the save.
    private func spillRuns() {
        guard let spill, marks.count == 1, marks[0].runs == 0 else { return }
        let taken = pending.runs.count - 1
        guard spill.write(pending.runs[..<taken]) else { return } // kept in memory, as without a spill
        spilledCount += pending.runs[..<taken].reduce(0) { $0 + $1.count }
        pending.runs.removeFirst(taken)
        pending.runsBefore = max(0, pending.runsBefore - taken)
    }

    /// Forgets what was saved (or given up).
    func clear() {
        pending.runs.removeAll(keepingCapacity: true)
        pending.actionNames.removeAll(keepingCapacity: true)
        pending.lastName = ""
        snapshots.removeAll()
        spilledCount = 0
        spill?.reset()
        pending.lastAction = nil
        pending.lastType = nil
        pending.runsBefore = 0
        pending.travelled = false
    }

    func willRunAllOrNothing(in dispatcher: Dispatcher) {
        marks.append(mark)
    }

    func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        guard let mark = marks.popLast(), !kept else { return }
        if marks.isEmpty, spilledCount > 0 {
            spilledCount = 0
            spill?.discard()
        }
        rewind(to: mark)
    }

    /// Where the journal is now, to go back to with ``rewind(to:)``.
    private var mark: (runs: Int, lastCount: Int) { (pending.runs.count, pending.runs.last?.count ?? 0) }

    /// Forgets what was journalled since `mark` (a replay that undid itself). Its action names stay:
    /// saving a store again is harmless.
    private func rewind(to mark: (runs: Int, lastCount: Int)) {
        if pending.runs.count > mark.runs { pending.runs.removeLast(pending.runs.count - mark.runs) }
        if mark.runs > 0, pending.runs.count == mark.runs { pending.runs[mark.runs - 1].count = mark.lastCount }
        pending.runsBefore = pending.runs.count
        dropSnapshotsPastEnd()
    }
}
