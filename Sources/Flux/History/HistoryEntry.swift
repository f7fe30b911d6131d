/// One step of undo: the targets an action (or a group of actions) changed. Each target keeps its own
/// state from before the step (see ``UndoStates``), so a step holds no state itself.
///
/// Most steps touch one target, so the first is kept inline and only further ones in an array:
/// recording a step costs no allocation in the common case.
struct HistoryEntry {
    /// What the user did: the group's label, or the action's name.
    let label: String
    /// What the targets' kept states cost together, in bytes.
    private(set) var cost = 0
    private(set) var first: (any DispatchTarget)?
    private(set) var rest: [any DispatchTarget] = []

    init(label: String) {
        self.label = label
    }

    init(label: String, cost: Int, first: (any DispatchTarget)?, rest: [any DispatchTarget]) {
        self.label = label
        self.cost = cost
        self.first = first
        self.rest = rest
    }

    /// Whether the step changes nothing.
    var isEmpty: Bool { first == nil }

    /// Adds a target that kept a state costing `cost` bytes for this step.
    mutating func append(_ target: any DispatchTarget, cost: Int) {
        if first == nil { first = target } else { rest.append(target) }
        self.cost += cost
    }

    func contains(_ target: any DispatchTarget) -> Bool {
        first.map { $0 === target } == true || rest.contains { $0 === target }
    }

    func forEachTarget(_ body: (any DispatchTarget) -> Void) {
        guard let first else { return }
        body(first)
        for target in rest { body(target) }
    }

    /// Moves every target one step back or forward and returns the step that reverses it.
    func travel(_ step: HistoryStep) -> HistoryEntry {
        var reverse = HistoryEntry(label: label)
        forEachTarget { reverse.append($0, cost: $0.travel(step)) }
        return reverse
    }
}
