/// The dispatcher's undo and redo stacks, bounded by steps and by memory so memory stays flat however
/// many actions run and however large the states.
///
/// Each entry reverts every store an action touched — or every store a named group of actions touched —
/// in one step, the way the user perceives the change. ``Dispatcher/undo()`` and ``Dispatcher/redo()``
/// move entries between the stacks; a new change clears the redo stack.
public final class History {
    /// The most undo steps kept; the oldest step is dropped past it.
    @exclusivity(unchecked) public var limit: Int {
        didSet {
            limit = max(0, limit)
            while undoStack.count > limit { dropOldest() }
            undoStack.capacity = limit
        }
    }

    /// The most bytes the undo steps may keep, as their targets count them
    /// (``DispatchTarget/commit(recording:)``); past it the oldest steps are dropped, so a large state
    /// never fills memory with copies of itself. The first time, a note says so.
    @exclusivity(unchecked) public var memoryLimit: Int {
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

    // Used from the dispatcher's one thread; no access spans a call out.
    let undoStack: HistoryRing
    @exclusivity(unchecked) private(set) var redoStack: [HistoryEntry] = []
    @exclusivity(unchecked) private var noted = false

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

    /// Whether targets should keep undo states for a new step.
    var isRecording: Bool { limit > 0 }

    /// Forgets every step.
    public func clear() {
        for entry in undoStack.entries + redoStack { entry.forEachTarget { $0.forgetHistory() } }
        undoStack.removeAll()
        redoStack.removeAll()
        cost = 0
        noted = false
    }

    /// Adds a step whose targets have kept their states; returns a note for the user the first time
    /// steps are dropped to stay under ``memoryLimit``.
    func record(_ entry: HistoryEntry) -> String? {
        guard let first = entry.first else { return nil }
        return record(label: entry.label, cost: entry.cost, first: first, rest: entry.rest)
    }

    /// Adds a step that changed `first` and the targets in `rest` (usually none: nil).
    func record(label: String, cost: Int, first: any DispatchTarget, rest: [any DispatchTarget]?) -> String? {
        guard isRecording else { return nil }
        if undoStack.isFull { forgetOldest() }
        self.cost += cost
        undoStack.append(label: label, cost: cost, first: first, rest: rest)
        if !redoStack.isEmpty { dropRedo() }
        return self.cost > memoryLimit ? trimToMemoryLimit() : nil
    }

    func popUndo() -> HistoryEntry? {
        guard let entry = undoStack.popLast() else { return nil }
        cost -= entry.cost
        return entry
    }

    func popRedo() -> HistoryEntry? { redoStack.popLast() }
    func pushRedo(_ entry: HistoryEntry) { redoStack.append(entry) }

    func pushUndo(_ entry: HistoryEntry) -> String? {
        if undoStack.isFull { forgetOldest() }
        cost += entry.cost
        undoStack.append(entry)
        return cost > memoryLimit ? trimToMemoryLimit() : nil
    }

    /// Drops the oldest steps until the rest fit in ``memoryLimit``; returns the note, the first time.
    private func trimToMemoryLimit() -> String? {
        guard cost > memoryLimit else { return nil }
        var dropped = 0
        var largest = 0
        while cost > memoryLimit, !undoStack.isEmpty {
            largest = max(largest, undoStack.oldestCost)
            forgetOldest()
            _ = undoStack.popFirst()
            dropped += 1
        }
        guard !noted else { return nil }
        noted = true
        return "undo history: dropped the \(dropped == 1 ? "oldest step" : "\(dropped) oldest steps") to stay "
            + "under \(Self.mebibytes(memoryLimit)) (a step kept \(Self.mebibytes(largest))); "
            + "undo now reaches back \(undoStack.count) step\(undoStack.count == 1 ? "" : "s")"
    }

    private func dropOldest() {
        forgetOldest()
        _ = undoStack.popFirst()
    }

    /// Tells the targets of the oldest step, about to be dropped, to forget their state for it.
    private func forgetOldest() {
        cost -= undoStack.oldestCost
        undoStack.forEachOldestTarget { $0.forgetOldestUndo() }
    }

    private func dropRedo() {
        for entry in redoStack { entry.forEachTarget { $0.forgetRedo() } }
        redoStack.removeAll()
    }

    private static func mebibytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}
