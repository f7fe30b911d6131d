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

    /// Both stacks as they are now, for ``restore(_:)``.
    func saved() -> (undo: HistoryRing, redo: [HistoryEntry]) { (undoStack, redoStack) }

    /// Puts both stacks back as ``saved()`` found them.
    func restore(_ saved: (undo: HistoryRing, redo: [HistoryEntry])) {
        undoStack = saved.undo
        redoStack = saved.redo
    }

    /// Forgets every step.
    public func clear() {
        undoStack.removeAll()
        redoStack.removeAll()
    }

    func record(_ entry: consuming HistoryEntry) {
        guard limit > 0 else { return }
        undoStack.append(entry)
        if !redoStack.isEmpty { redoStack.removeAll() }
    }

    func popUndo() -> HistoryEntry? { undoStack.popLast() }
    func popRedo() -> HistoryEntry? { redoStack.popLast() }
    func pushRedo(_ entry: HistoryEntry) { redoStack.append(entry) }
    func pushUndo(_ entry: HistoryEntry) {
        undoStack.append(entry)
    }
}
