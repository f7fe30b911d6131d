import Flux

/// Collects what the dispatcher commits between two saves of a session: the journal's new rows, and
/// the names of the actions they hold (the stores that handle them are saved again).
///
/// A reader of the dispatcher's ``SettledCommits`` told each commit as it happens
/// (``SettledCommits/subscribe(asCommitted:withdrawn:)``), not once it settles: a replay of a million
/// lines is written as it goes (runs past ``SessionJournalSpill/threshold`` go to the spill), and a
/// snapshot is taken at its place inside a group or a replay. What a rollback takes back the stream
/// says (``withdraw(_:)``): the journal keeps no rollback bookkeeping of its own.
///
/// Runs of identical actions in a row are counted, not stored one by one: a loop dispatching the same
/// action costs a comparison and an increment per action here, and one journal row per save.
///
/// What changes at each action lives in one value (``Pending``), changed by one mutating call per
/// action: the class's properties are each an access the runtime checks for exclusivity, and a
/// dispatch crosses a handful of them, not one per field.
final class SessionJournal {
    /// A run of identical actions (or one step), waiting to be saved.
    struct Run {
        var entry: ActionLogEntry
        var count: Int
        var lastTime: Double
    }

    /// What an action journalled makes due.
    struct Due {
        /// The runs in memory reached ``SessionJournalSpill/threshold`` while nothing can be saved.
        var spill = false
        /// ``snapshotInterval`` entries since the last snapshot.
        var snapshot = false
        /// The save's deadline passed and everything told so far has settled.
        var deadline = false
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
        /// The last run's action, to compare the next one with.
        var last: SameAction?
        /// The name of the last run's action, already in `actionNames`.
        var lastName = ""
        var lastGroupID: Int?
        var lastOrigin = SettledCommit.Origin.direct
        /// Runs before this index are not continued: a step, or a withdrawal, came after them.
        var runsBefore = 0

        /// Journals `action` (`settled`: nothing told so far can be withdrawn any more); returns what is due.
        mutating func commit(_ action: any Action, now: Double, group: (id: Int, label: String)?, origin: SettledCommit.Origin,
                             settled: Bool) -> Due {
            let outcome = last?.take(action) ?? .otherType
            if outcome == .same, runs.count > runsBefore, lastGroupID == group?.id, lastOrigin == origin {
                runs[runs.count - 1].count += 1
                runs[runs.count - 1].lastTime = now
            } else {
                var entry = ActionLogEntry(action: action, time: now, group: group, isFollowUp: origin == .followUp)
                entry.isEffect = origin == .effect
                runs.append(Run(entry: entry, count: 1, lastTime: now))
                let name = action.name
                if name != lastName {
                    actionNames.insert(name)
                    lastName = name
                }
                if outcome == .otherType { last = SameAction.holding(action) }
                lastGroupID = group?.id
                lastOrigin = origin
            }
            count += 1
            sinceSnapshot += 1
            return Due(spill: !settled && runs.count >= SessionJournalSpill.threshold, snapshot: sinceSnapshot >= snapshotInterval,
                       deadline: settled && now >= deadline)
        }

        /// How many actions and steps the runs hold, kept as they change: a snapshot asks at every
        /// thousandth entry, and summing thousands of runs then cost more than the entries themselves.
        var count = 0
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

    /// Where the runs of a long replay (or group) go while it runs (see ``SessionJournalSpill``); nil: memory.
    var spill: SessionJournalSpill?
    /// How many actions and steps of the pending ones are in ``spill``: saved before ``runs``.
    private(set) var spilledCount = 0

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

    /// Journals `commit`, told as it happened; `settled`: nothing told so far can be withdrawn any more.
    func didCommit(_ commit: SettledCommit, settled: Bool) {
        guard case let .action(action) = commit.event else { return appendAlone(ActionLogEntry(commit), settled: settled) }
        let due = pending.commit(action, now: commit.time, group: commit.group, origin: commit.origin, settled: settled)
        if due.spill { spillRuns() }
        if due.snapshot { snapshot() }
        if due.deadline { onDeadline() }
    }

    /// Keeps every store's state right after the last entry, to be saved with it.
    func snapshot() {
        pending.sinceSnapshot = 0
        snapshots.append((pendingCount, takeSnapshot()))
    }

    /// Drops the snapshots taken after entries that are no longer pending (withdrawn).
    private func dropSnapshotsPastEnd() {
        guard !snapshots.isEmpty else { return }
        let count = pendingCount
        snapshots.removeAll { $0.entries > count }
    }

    /// Journals a step or a setting of states: a run of its own, which no action continues; it may
    /// have changed any store.
    private func appendAlone(_ entry: ActionLogEntry, settled: Bool) {
        pending.travelled = true
        pending.runs.append(Run(entry: entry, count: 1, lastTime: entry.time))
        pending.count += 1
        pending.runsBefore = pending.runs.count
        // A replay from an earlier snapshot could not take back a step made before it.
        snapshot()
        if settled, entry.time >= pending.deadline { onDeadline() }
    }

    /// Forgets the last `count` actions and steps journalled (rolled back: a failed group, a replay
    /// that failed or was stopped), those spilled included. Their action names stay: saving a store
    /// again is harmless.
    func withdraw(_ count: Int) {
        var left = count
        while left > 0, let last = pending.runs.indices.last {
            let taken = min(left, pending.runs[last].count)
            pending.runs[last].count -= taken
            pending.count -= taken
            left -= taken
            if pending.runs[last].count == 0 { pending.runs.removeLast() }
        }
        if left > 0, spilledCount > 0 {
            let taken = min(left, spilledCount)
            spilledCount -= taken
            if spilledCount == 0 { spill?.discard() } else { spill?.withdraw(taken) }
        }
        // The next action starts a run of its own rather than joining one it may not match.
        pending.runsBefore = pending.runs.count
        dropSnapshotsPastEnd()
    }

    /// How many actions and steps wait to be saved.
    var pendingCount: Int { spilledCount + pending.count }

    /// Moves every run but the last (which the next action may continue) into ``spill``: while nothing
    /// can be saved (a replay, a long group), so that memory holds a few thousand runs, not a million.
    /// The spilled runs come first at the save, as they came first.
    private func spillRuns() {
        guard let spill, spill.failure == nil else { return } // a failed spill is not tried again at each action
        let taken = pending.runs.count - 1
        guard spill.write(pending.runs[..<taken]) else { return } // kept in memory, as without a spill
        let moved = pending.runs[..<taken].reduce(0) { $0 + $1.count }
        spilledCount += moved
        pending.count -= moved
        pending.runs.removeFirst(taken)
        pending.runsBefore = max(0, pending.runsBefore - taken)
    }

    /// Forgets what was saved (or given up).
    func clear() {
        pending.runs.removeAll(keepingCapacity: true)
        pending.count = 0
        pending.actionNames.removeAll(keepingCapacity: true)
        pending.lastName = ""
        snapshots.removeAll()
        spilledCount = 0
        spill?.reset()
        pending.runsBefore = 0
        pending.travelled = false
    }
}
