/// The dispatcher's undo and redo stacks, bounded by steps and by memory so memory stays flat however
/// many actions run and however large the states.
///
/// Each entry reverts every store an action touched — or every store a named group of actions touched —
/// in one step, the way the user perceives the change. ``Dispatcher/undo()`` and ``Dispatcher/redo()``
/// move entries between the stacks; a new change clears the redo stack.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): `cost` and `version`, updated
/// at every recorded step, are declared without dynamic exclusivity checks. Invariant: a history is used
/// from one thread, with its dispatcher, and no access to either spans a call out. Broken,
/// `LuaTortureSpec` fails under FLUX_GC_TORTURE=1.
public final class History {
    /// The most undo steps kept; the oldest step is dropped past it.
    public var limit: Int {
        didSet {
            limit = max(0, limit)
            while undoStack.count > limit { dropOldest() }
            undoStack.capacity = limit
        }
    }

    /// The most bytes the undo steps may keep, as their stores count them;
    /// past it the oldest steps are dropped, so a large state never fills memory with copies of itself.
    /// The first time, a note says so.
    public var memoryLimit: Int {
        didSet {
            memoryLimit = max(0, memoryLimit)
            noted = false
            _ = trimToMemoryLimit()
        }
    }

    /// The default ``memoryLimit``: 256 MiB.
    public static let defaultMemoryLimit = 256 << 20

    /// What the undo steps keep now, in bytes.
    @exclusivity(unchecked) public private(set) var cost = 0

    let undoStack: HistoryRing
    private(set) var redoStack: [HistoryEntry] = []
    private var noted = false

    /// A history keeping at most `limit` steps and `memoryLimit` bytes.
    public init(limit: Int = 100, memoryLimit: Int = History.defaultMemoryLimit) {
        self.limit = max(0, limit)
        self.memoryLimit = max(0, memoryLimit)
        undoStack = HistoryRing(capacity: self.limit)
    }

    /// Whether there is a step to undo.
    public var canUndo: Bool { !undoStack.isEmpty }
    /// Whether there is a step to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The labels of the undo steps, oldest first.
    public var undoLabels: [String] { undoStack.entries.map(\.label) }
    /// The labels of the redo steps, next first.
    public var redoLabels: [String] { redoStack.reversed().map(\.label) }

    /// Goes up by one whenever a step is recorded, taken or dropped: whoever saves the history saves
    /// it again only when this moved.
    @exclusivity(unchecked) public private(set) var version = 0

    /// The steps as they are: undo oldest first, redo with the next one to take last.
    public var steps: (undo: [HistoryEntry], redo: [HistoryEntry]) { (undoStack.entries, redoStack) }

    /// Puts back steps read from ``steps`` (a session restoring its saved history, a replay that
    /// failed undoing itself); undo steps past ``limit`` or ``memoryLimit`` are dropped, oldest first.
    /// Returns the note for the user when memory dropped steps.
    @discardableResult
    public func replaceSteps(undo: [HistoryEntry], redo: [HistoryEntry]) -> String? {
        undoStack.removeAll()
        cost = 0
        // A step taken from this history keeps its number (a rollback putting back the steps it had):
        // whoever saved the step knows it by it. Steps from elsewhere (a session) get new ones.
        for var entry in undo.suffix(limit) where !entry.isEmpty {
            if entry.number == 0 { entry.number = nextNumber() }
            cost += entry.cost
            undoStack.append(entry)
        }
        redoStack = redo.map { entry in
            var entry = entry
            if entry.number == 0 { entry.number = nextNumber() }
            return entry
        }
        version &+= 1
        return trimToMemoryLimit()
    }

    /// Whether the dispatcher should keep states for a new step.
    var isRecording: Bool { limit > 0 }

    /// Drops every step of the undo or the redo stack; returns how many went.
    func dropStack(_ step: HistoryStep) -> Int {
        let count: Int
        if step == .undo {
            count = undoStack.count
            undoStack.removeAll()
            cost = 0
        } else {
            count = redoStack.count
            redoStack.removeAll()
        }
        version &+= 1
        return count
    }

    /// Forgets every step.
    public func clear() {
        undoStack.removeAll()
        redoStack.removeAll()
        cost = 0
        noted = false
        version &+= 1
    }

    /// Adds a step; returns a note for the user the first time steps are dropped to stay under
    /// ``memoryLimit``.
    func record(_ entry: HistoryEntry) -> String? {
        guard let first = entry.first else { return nil }
        return record(label: entry.label, cost: entry.cost, target: first.target, kept: first.kept, rest: entry.rest, actions: entry.actions)
    }

    /// Adds a step that changed `target` from the state in `kept`, and the states in `rest` (usually
    /// none: nil).
    func record(label: String, cost: Int, target: any TransactionalTarget, kept: consuming KeptState, rest: [HistoryEntry.Change]?,
                actions: StepActions) -> String? {
        guard isRecording else { return nil }
        self.cost += cost - undoStack.append(label: label, number: nextNumber(), cost: cost, target: target, kept: kept, rest: rest, actions: actions)
        if !redoStack.isEmpty { redoStack.removeAll() }
        version &+= 1
        return self.cost > memoryLimit ? trimToMemoryLimit() : nil
    }

    /// Gives the steps, in the order of ``steps`` (undo oldest first, then redo next first), the actions
    /// they held where known (a session restoring what `:history` showed of each); nil leaves a step as it is.
    package func setActions(_ actions: [StepActions?]) {
        for (offset, step) in actions.prefix(undoStack.count).enumerated() {
            if let step { undoStack.setActions(step, at: offset) }
        }
        for (offset, step) in actions.dropFirst(undoStack.count).prefix(redoStack.count).enumerated() {
            if let step { redoStack[redoStack.count - 1 - offset].actions = step }
        }
    }

    func popUndo() -> HistoryEntry? {
        guard let entry = undoStack.popLast() else { return nil }
        cost -= entry.cost
        version &+= 1
        return entry
    }

    func popRedo() -> HistoryEntry? {
        guard let entry = redoStack.popLast() else { return nil }
        version &+= 1
        return entry
    }

    func pushRedo(_ entry: consuming HistoryEntry) {
        entry.number = nextNumber()
        redoStack.append(entry)
    }

    func pushUndo(_ entry: consuming HistoryEntry) -> String? {
        entry.number = nextNumber()
        cost += entry.cost - undoStack.append(entry)
        return cost > memoryLimit ? trimToMemoryLimit() : nil
    }

    /// Drops the oldest steps until the rest fit in ``memoryLimit``; returns the note, the first time.
    private func trimToMemoryLimit() -> String? {
        guard cost > memoryLimit else { return nil }
        var dropped = 0
        var largest = 0
        while cost > memoryLimit, !undoStack.isEmpty {
            largest = max(largest, undoStack.oldestCost)
            dropOldest()
            dropped += 1
        }
        guard !noted else { return nil }
        noted = true
        return "undo history: dropped the \(dropped == 1 ? "oldest step" : "\(dropped) oldest steps") to stay "
            + "under \(Self.mebibytes(memoryLimit)) (a step kept \(Self.mebibytes(largest))); "
            + "undo now reaches back \(undoStack.count) step\(undoStack.count == 1 ? "" : "s")"
    }

    private func dropOldest() {
        cost -= undoStack.oldestCost
        _ = undoStack.popFirst()
        version &+= 1
    }

    private var lastNumber = 0

    private func nextNumber() -> Int {
        lastNumber &+= 1
        return lastNumber
    }

    private static func mebibytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}
