/// One step of undo: what every store touched by an action (or a group of actions) looked like before it.
///
/// Most steps touch one store, so the first state is kept inline and only further ones in an array:
/// recording a step costs no allocation in the common case.
public struct HistoryEntry {
    /// What the user did: the group's label, or the action's name.
    public let label: String
    /// Set by the history when it takes the step in, unique within it: whoever saves the history
    /// encodes a step once, not at every save.
    public internal(set) var number = 0
    private var first: Change?
    private var rest: [Change] = []

    /// One store's state before the step. A struct, not a tuple: tuples in generic containers are
    /// copied by runtime-built value witnesses, several times slower.
    private struct Change {
        let target: any DispatchTarget
        let snapshot: Any
    }

    init(label: String) {
        self.label = label
    }

    /// A step restoring each target to its snapshot (a session rebuilding its saved history).
    public init(label: String, changes: [(target: any DispatchTarget, snapshot: Any)]) {
        self.label = label
        for change in changes { append(change.target, change.snapshot) }
    }

    /// Each target the step restores, with the state it restores it to.
    public var changes: [(target: any DispatchTarget, snapshot: Any)] {
        var changes: [(target: any DispatchTarget, snapshot: Any)] = []
        forEachState { changes.append(($0, $1)) }
        return changes
    }

    /// Whether the step changes nothing.
    var isEmpty: Bool { first == nil }

    mutating func append(_ target: any DispatchTarget, _ snapshot: Any) {
        if first == nil { first = Change(target: target, snapshot: snapshot) } else { rest.append(Change(target: target, snapshot: snapshot)) }
    }

    /// Adds the states of `later` for targets this step does not hold yet.
    mutating func merge(_ later: HistoryEntry) {
        later.forEachState { target, snapshot in
            if !contains(target) { append(target, snapshot) }
        }
    }

    func contains(_ target: any DispatchTarget) -> Bool {
        first.map { $0.target === target } == true || rest.contains { $0.target === target }
    }

    func forEachTarget(_ body: (any DispatchTarget) -> Void) {
        forEachState { target, _ in body(target) }
    }

    private func forEachState(_ body: (any DispatchTarget, Any) -> Void) {
        guard let first else { return }
        body(first.target, first.snapshot)
        for state in rest { body(state.target, state.snapshot) }
    }

    /// Puts every target back to the state held here and returns the step that reverses it
    /// (holding the states they had until now).
    func swapped() -> HistoryEntry {
        var reverse = HistoryEntry(label: label)
        forEachState { target, _ in reverse.append(target, target.snapshot()) }
        var states: [(any DispatchTarget, Any)] = []
        forEachState { states.append(($0, $1)) }
        for (target, snapshot) in states.reversed() { target.restore(snapshot) }
        return reverse
    }
}
