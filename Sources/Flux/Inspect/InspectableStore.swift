/// A store the shell's devtools can look into: its undo snapshots as data (to show what a past step
/// changed) and the stores it waits for (to draw how stores depend on each other).
public protocol InspectableStore: StoreProtocol {
    /// A state the undo history keeps for this store as an encodable value, or nil when it is not one
    /// of this store's states.
    func encodable(snapshot: Any) -> (any Encodable)?
    /// The names of the stores this store declares it waits for (empty when it decides in code).
    var waitsFor: [String] { get }
    /// Who defined the store, as the store graph shows it: `Swift`, `Lua` for what was typed or run as a script, `plugin NAME`.
    var ownerName: String { get }
}

extension Store: InspectableStore {
    public func encodable(snapshot: Any) -> (any Encodable)? { snapshot as? State }
    public var waitsFor: [String] { [] }
    public var ownerName: String { "Swift" }
}
