/// The dispatcher's undo and redo stacks, bounded so memory stays flat however many actions run.
///
/// Each entry reverts every store an action touched — or every store a named group of actions touched —
/// in one step, the way the user perceives the change. ``Dispatcher/undo()`` and ``Dispatcher/redo()``
/// move entries between the stacks; a new change clears the redo stack.
public final class History {
    /// The most undo steps kept; the oldest step is dropped past it.
    @exclusivity(unchecked) public var limit: Int {
        didSet {
            limit = max(0, limit)
            undoStack.capacity = limit
        }
    }

    // Used from the dispatcher's one thread; no access spans a call out.
    @exclusivity(unchecked) private(set) var undoStack: HistoryRing
    @exclusivity(unchecked) private(set) var redoStack: [HistoryEntry] = []

    /// A history keeping at most `limit` steps.
    public init(limit: Int = 100) {
        self.limit = max(0, limit)
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
    /// failed undoing itself); undo steps past ``limit`` are dropped, oldest first.
    public func replaceSteps(undo: [HistoryEntry], redo: [HistoryEntry]) {
        undoStack.removeAll()
        for var entry in undo.suffix(limit) {
            entry.number = nextNumber()
            undoStack.append(entry)
        }
        redoStack = redo.map { entry in
            var entry = entry
            entry.number = nextNumber()
            return entry
        }
        version += 1
    }

    /// Forgets every step.
    public func clear() {
        undoStack.removeAll()
        redoStack.removeAll()
        version += 1
    }

    func record(_ entry: consuming HistoryEntry) {
        guard limit > 0 else { return }
        entry.number = nextNumber()
        undoStack.append(entry)
        if !redoStack.isEmpty { redoStack.removeAll() }
        version &+= 1
    }

    func popUndo() -> HistoryEntry? {
        version += 1
        return undoStack.popLast()
    }

    func popRedo() -> HistoryEntry? {
        version += 1
        return redoStack.popLast()
    }

    func pushRedo(_ entry: consuming HistoryEntry) {
        entry.number = nextNumber()
        redoStack.append(entry)
    }

    func pushUndo(_ entry: consuming HistoryEntry) {
        entry.number = nextNumber()
        undoStack.append(entry)
    }

    @exclusivity(unchecked) private var lastNumber = 0

    private func nextNumber() -> Int {
        lastNumber &+= 1
        return lastNumber
    }
}
