/// One step of undo: what every store touched by an action (or a group of actions) looked like before it.
public struct HistoryEntry {
    /// What the user did: the group's label, or the action's name.
    public let label: String
    /// Each touched target with its state before (on the undo stack) or after (on the redo stack).
    var states: [(target: any DispatchTarget, snapshot: Any)]

    /// The names of the stores this step changes.
    public var storeNames: [String] { states.map(\.target.name) }
}
