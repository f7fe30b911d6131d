/// The dispatcher's undo and redo stacks, bounded by steps and by memory so memory stays flat however
/// many actions run and however large the states.
///
/// Each entry reverts every store an action touched — or every store a named group of actions touched —
/// in one step, the way the user perceives the change. ``Dispatcher/undo()`` and ``Dispatcher/redo()``
/// move entries between the stacks; a new change clears the redo stack.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): the fields a recorded step
/// reads and writes live in one struct, `books`, declared without dynamic exclusivity checks (one
/// property, so a step costs no run-time check at all instead of one per field). Invariant: a history is
/// used from one thread, with its dispatcher, and no access to `books` spans a call out: each is one
/// statement, and steps the redo stack drops are released after the access ends. Broken,
/// `LuaTortureSpec` fails under FLUX_GC_TORTURE=1.
public final class History {
    /// The most undo steps kept; the oldest step is dropped past it.
    public var limit: Int {
        get { books.limit }
        set {
            books.limit = max(0, newValue)
            while undoStack.count > books.limit { dropOldest() }
            undoStack.capacity = books.limit
        }
    }

    /// The most bytes the undo steps may keep, as their stores count them;
    /// past it the oldest steps are dropped, so a large state never fills memory with copies of itself.
    /// The first time, a note says so.
    public var memoryLimit: Int {
        get { books.memoryLimit }
        set {
            books.memoryLimit = max(0, newValue)
            books.noted = false
            _ = trimToMemoryLimit()
        }
    }

    /// The default ``memoryLimit``: 256 MiB.
    public static let defaultMemoryLimit = 256 << 20

    /// What the undo steps keep now, in bytes.
    public var cost: Int { books.cost }

    /// The history's own fields, together.
    private struct Books {
        var limit: Int
        var memoryLimit: Int
        var cost = 0
        var version = 0
        var lastNumber = 0
        var noted = false
        var redoStack: [HistoryEntry] = []
    }

    @exclusivity(unchecked) private var books: Books

    let undoStack: HistoryRing
    var redoStack: [HistoryEntry] { books.redoStack }

    /// A history keeping at most `limit` steps and `memoryLimit` bytes.
    public init(limit: Int = 100, memoryLimit: Int = History.defaultMemoryLimit) {
        books = Books(limit: max(0, limit), memoryLimit: max(0, memoryLimit))
        undoStack = HistoryRing(capacity: books.limit)
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
    public var version: Int { books.version }

    /// The steps as they are: undo oldest first, redo with the next one to take last.
    public var steps: (undo: [HistoryEntry], redo: [HistoryEntry]) { (undoStack.entries, redoStack) }

    /// Puts back steps read from ``steps`` (a session restoring its saved history, a replay that
    /// failed undoing itself); undo steps past ``limit`` or ``memoryLimit`` are dropped, oldest first.
    /// Returns the note for the user when memory dropped steps.
    @discardableResult
    public func replaceSteps(undo: [HistoryEntry], redo: [HistoryEntry]) -> String? {
        undoStack.removeAll()
        books.cost = 0
        // A step taken from this history keeps its number (a rollback putting back the steps it had):
        // whoever saved the step knows it by it. Steps from elsewhere (a session) get new ones.
        for var entry in undo.suffix(books.limit) where !entry.isEmpty {
            if entry.number == 0 { entry.number = nextNumber() }
            books.cost += entry.cost
            undoStack.append(entry)
        }
        let redone = redo.map { entry in
            var entry = entry
            if entry.number == 0 { entry.number = nextNumber() }
            return entry
        }
        var replaced = redone
        swap(&replaced, &books.redoStack) // the old steps released after the access
        books.version &+= 1
        return trimToMemoryLimit()
    }

    /// Whether the dispatcher should keep states for a new step.
    var isRecording: Bool { books.limit > 0 }

    /// Drops every step of the undo or the redo stack; returns how many went.
    func dropStack(_ step: HistoryStep) -> Int {
        let count: Int
        if step == .undo {
            count = undoStack.count
            undoStack.removeAll()
            books.cost = 0
        } else {
            count = books.redoStack.count
            clearRedo()
        }
        books.version &+= 1
        return count
    }

    /// Forgets every step.
    public func clear() {
        undoStack.removeAll()
        clearRedo()
        books.cost = 0
        books.noted = false
        books.version &+= 1
    }

    /// Empties the redo stack; its steps are released after the access to `books` ends.
    private func clearRedo() {
        var cleared: [HistoryEntry] = []
        swap(&cleared, &books.redoStack)
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
        guard books.limit > 0 else { return nil }
        let number = nextNumber()
        let dropped = undoStack.append(label: label, number: number, cost: cost, target: target, kept: kept, rest: rest, actions: actions)
        return recorded(cost: cost, dropped: dropped)
    }

    /// Adds a step of the one action `action`, outside a group, that changed `target` from the state in `kept`.
    func record(label: String, cost: Int, target: any TransactionalTarget, kept: consuming KeptState, single action: any Action) -> String? {
        guard books.limit > 0 else { return nil }
        let number = nextNumber()
        let dropped = undoStack.append(label: label, number: number, cost: cost, target: target, kept: kept, single: action)
        return recorded(cost: cost, dropped: dropped)
    }

    /// The books of a step recorded at `cost` that dropped one costing `dropped`.
    @inline(__always)
    private func recorded(cost: Int, dropped: Int) -> String? {
        books.cost += cost - dropped
        if !books.redoStack.isEmpty { clearRedo() }
        books.version &+= 1
        return books.cost > books.memoryLimit ? trimToMemoryLimit() : nil
    }

    /// Gives the steps, in the order of ``steps`` (undo oldest first, then redo next first), the actions
    /// they held where known (a session restoring what `:history` showed of each); nil leaves a step as it is.
    package func setActions(_ actions: [StepActions?]) {
        for (offset, step) in actions.prefix(undoStack.count).enumerated() {
            if let step { undoStack.setActions(step, at: offset) }
        }
        for (offset, step) in actions.dropFirst(undoStack.count).prefix(books.redoStack.count).enumerated() {
            if let step { books.redoStack[books.redoStack.count - 1 - offset].actions = step }
        }
    }

    func popUndo() -> HistoryEntry? {
        guard let entry = undoStack.popLast() else { return nil }
        books.cost -= entry.cost
        books.version &+= 1
        return entry
    }

    func popRedo() -> HistoryEntry? {
        guard let entry = books.redoStack.popLast() else { return nil }
        books.version &+= 1
        return entry
    }

    func pushRedo(_ entry: consuming HistoryEntry) {
        entry.number = nextNumber()
        books.redoStack.append(entry)
    }

    func pushUndo(_ entry: consuming HistoryEntry) -> String? {
        entry.number = nextNumber()
        let dropped = undoStack.append(entry)
        books.cost += entry.cost - dropped
        return books.cost > books.memoryLimit ? trimToMemoryLimit() : nil
    }

    /// Drops the oldest steps until the rest fit in ``memoryLimit``; returns the note, the first time.
    private func trimToMemoryLimit() -> String? {
        guard books.cost > books.memoryLimit else { return nil }
        var dropped = 0
        var largest = 0
        while books.cost > books.memoryLimit, !undoStack.isEmpty {
            largest = max(largest, undoStack.oldestCost)
            dropOldest()
            dropped += 1
        }
        guard !books.noted else { return nil }
        books.noted = true
        return "undo history: dropped the \(dropped == 1 ? "oldest step" : "\(dropped) oldest steps") to stay "
            + "under \(Self.mebibytes(memoryLimit)) (a step kept \(Self.mebibytes(largest))); "
            + "undo now reaches back \(undoStack.count) step\(undoStack.count == 1 ? "" : "s")"
    }

    private func dropOldest() {
        books.cost -= undoStack.oldestCost
        _ = undoStack.popFirst()
        books.version &+= 1
    }

    private func nextNumber() -> Int {
        books.lastNumber &+= 1
        return books.lastNumber
    }

    private static func mebibytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}
