/// One step of undo: what every store touched by an action (or a group of actions) looked like before it.
///
/// Most steps touch one store, so the first state is kept inline and only further ones in an array:
/// recording a step costs no allocation beyond the state's own box (``KeptState``) in the common case.
public struct HistoryEntry {
    /// What the user did: the group's label, or the action's name.
    public let label: String
    /// Set by the history when it takes the step in, unique within it: whoever saves the history
    /// encodes a step once, not at every save.
    public internal(set) var number = 0
    /// What the states held here cost together, in bytes, as their targets count them
    /// (``TransactionalTarget/cost(of:)``): the history drops its oldest steps past ``History/memoryLimit``.
    public private(set) var cost = 0
    private(set) var first: Change?
    private(set) var rest: [Change] = []
    /// The actions the step holds, as `:history` shows them.
    public internal(set) var actions = StepActions()

    /// One store's state before the step. A struct, not a tuple: tuples in generic containers are
    /// copied by runtime-built value witnesses, several times slower.
    struct Change {
        let target: any TransactionalTarget
        var kept: KeptState

        /// The state, unboxed.
        var snapshot: Any { kept.value }
    }

    init(label: String) {
        self.label = label
    }

    init(label: String, number: Int, cost: Int, first: Change?, rest: [Change], actions: StepActions = StepActions()) {
        self.label = label
        self.number = number
        self.cost = cost
        self.first = first
        self.rest = rest
        self.actions = actions
    }

    /// A step restoring each target to its snapshot (a session rebuilding its saved history).
    package init(label: String, changes: [(target: any TransactionalTarget, snapshot: Any)]) {
        self.label = label
        for change in changes { append(change.target, KeptAny(change.snapshot), cost: change.target.cost(of: change.snapshot)) }
    }

    /// Each target the step restores, with the state it restores it to.
    package var changes: [(target: any TransactionalTarget, snapshot: Any)] {
        var changes: [(target: any TransactionalTarget, snapshot: Any)] = []
        forEachState { changes.append(($0, $1)) }
        return changes
    }

    /// Whether the step changes nothing.
    var isEmpty: Bool { first == nil }

    /// Adds `target`'s state before the step, which costs `cost` bytes to keep.
    mutating func append(_ target: any TransactionalTarget, _ kept: KeptState, cost: Int) {
        let change = Change(target: target, kept: kept)
        if first == nil { first = change } else { rest.append(change) }
        self.cost += cost
    }

    /// Adds the states of `later` (an inner group's) for the targets this step does not hold yet: the
    /// earlier state of a target is the one its undo returns to.
    mutating func merge(_ later: HistoryEntry) {
        // The inner step's cost, less what its left-out states cost (counted only for those, rarely any).
        var leftOutCost = 0
        later.forEachChange { change in
            if contains(change.target) {
                leftOutCost += change.target.cost(of: change.snapshot)
            } else {
                append(change.target, change.kept, cost: 0)
            }
        }
        cost += later.cost - leftOutCost
        actions.append(contentsOf: later.actions)
    }

    func contains(_ target: any TransactionalTarget) -> Bool {
        first.map { $0.target === target } == true || rest.contains { $0.target === target }
    }

    func forEachTarget(_ body: (any TransactionalTarget) -> Void) {
        forEachChange { body($0.target) }
    }

    private func forEachState(_ body: (any TransactionalTarget, Any) -> Void) {
        forEachChange { body($0.target, $0.snapshot) }
    }

    func forEachChange(_ body: (Change) -> Void) {
        guard let first else { return }
        body(first)
        for change in rest { body(change) }
    }

    /// Puts every target back to the state held here and returns the step that reverses it
    /// (holding the states they had until now).
    func swapped() -> HistoryEntry {
        var states: [(any TransactionalTarget, Any)] = []
        forEachState { states.append(($0, $1)) }
        let now = states.map { $0.0.snapshot() }
        for (target, snapshot) in states.reversed() { target.restore(snapshot) }
        // Costed once put back: what a state keeps is measured against the state now.
        var reverse = HistoryEntry(label: label)
        reverse.actions = actions
        for ((target, _), state) in zip(states, now) { reverse.append(target, KeptAny(state), cost: target.cost(of: state)) }
        return reverse
    }
}
