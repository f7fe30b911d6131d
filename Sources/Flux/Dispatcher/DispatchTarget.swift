/// Something registered with a ``Dispatcher``: a store, or a bare callback.
///
/// The dispatcher drives a target through one transaction per action: it takes a ``snapshot()``,
/// calls ``handle(_:in:)``, and either keeps the change or ``restore(_:)``s the snapshot when any target
/// failed; once every target has handled the action it calls ``publish()`` so observers see the result.
/// ``Store`` implements all of this; scripting layers implement it for stores defined at run time.
public protocol DispatchTarget: AnyObject {
    /// The name used in messages, in `waitFor` cycles and by the shell.
    var name: String { get }
    /// Whether this target wants actions of this name.
    func handles(_ actionName: String) -> Bool
    /// Applies the action. Throwing leaves the target as its last ``snapshot()``.
    func handle(_ action: any Action, in dispatcher: Dispatcher) throws
    /// The state now, to restore on rollback or undo.
    func snapshot() -> Any
    /// Puts back a state taken by ``snapshot()``, without notifying anyone.
    func restore(_ snapshot: Any)
    /// Whether the state now equals `snapshot` (false when it cannot tell).
    func isUnchanged(since snapshot: Any) -> Bool
    /// Tells observers about the state now, if it differs from what they last heard.
    func publish()
}

/// A ``DispatchTarget`` that owns observable state: what the shell lists, prints and scripts subscribe to.
public protocol StoreProtocol: DispatchTarget {
    /// The names of the actions this store declares handlers for, sorted.
    var actionNames: [String] { get }
    /// Whether this store also sees every action (a derived store).
    var handlesEveryAction: Bool { get }
    /// The state observers last heard, as an encodable value.
    var encodableState: any Encodable { get }
    /// Observes the state as an encodable value: now, and after every change.
    func subscribeEncodable(_ observer: @escaping (any Encodable) -> Void) -> StoreSubscription
}
