import DequeModule

/// One target's own undo and redo states, one per history step it took part in, oldest first.
///
/// The ``History`` keeps which targets each step touched; each target keeps its states here, typed,
/// so recording a step neither boxes a state nor allocates once the history is full. The history
/// tells the target what to do with them (``DispatchTarget/travel(_:)`` and the `forget…` calls),
/// always at the same end of the stacks as its own steps, so the two stay in step.
public struct UndoStates<State> {
    @usableFromInline var undo = Deque<State>()
    @usableFromInline var redo: [State] = []

    /// No states.
    @inlinable public init() {}

    /// How many undo states are kept.
    public var undoCount: Int { undo.count }
    /// How many redo states are kept.
    public var redoCount: Int { redo.count }

    /// Keeps `state` as the newest undo state: the state before the step being recorded.
    @inlinable public mutating func keep(_ state: State) {
        undo.append(state)
    }

    /// Moves `current` one step back (``HistoryStep/undo``) or forward (``HistoryStep/redo``), keeping
    /// the state it leaves on the other stack. Returns false, changing nothing, when there is no state.
    @discardableResult
    @inlinable public mutating func travel(_ step: HistoryStep, current: inout State) -> Bool {
        switch step {
        case .undo:
            guard let previous = undo.popLast() else { return false }
            redo.append(current)
            current = previous
        case .redo:
            guard let next = redo.popLast() else { return false }
            undo.append(current)
            current = next
        }
        return true
    }

    /// Forgets the oldest undo state: the history dropped its oldest step.
    @inlinable public mutating func forgetOldestUndo() {
        _ = undo.popFirst()
    }

    /// Forgets every redo state: a new step was recorded.
    @inlinable public mutating func forgetRedo() {
        if !redo.isEmpty { redo.removeAll() }
    }

    /// Forgets every state.
    @inlinable public mutating func forgetAll() {
        undo.removeAll()
        redo.removeAll()
    }
}
