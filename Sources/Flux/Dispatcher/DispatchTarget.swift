/// Something registered with a ``Dispatcher``: a store, or a bare callback.
///
/// The dispatcher drives a target through one transaction per action: ``begin()``, then
/// ``handle(_:in:)``, then ``rollback()`` when any target failed or ``commit()`` when all succeeded;
/// once every target has handled the action it calls ``publish()`` so observers see the result.
/// Undo and redo use ``snapshot()`` and ``restore(_:)``.
/// ``Store`` implements all of this; scripting layers implement it for stores defined at run time.
public protocol DispatchTarget: AnyObject {
    /// The name used in messages, in `waitFor` cycles and by the shell.
    var name: String { get }
    /// Whether this target wants actions of this name.
    func handles(_ actionName: String) -> Bool
    /// Remembers the state now: an action is about to be handled.
    func begin()
    /// Applies the action. Throwing leaves the state as it was at ``begin()``.
    func handle(_ action: any Action, in dispatcher: Dispatcher) throws
    /// Returns to the state at ``begin()``: another target failed on the action.
    func rollback()
    /// Keeps the change; returns the state from ``begin()`` as an undo snapshot, or nil when the
    /// state is unchanged.
    func commit() -> Any?
    /// The state now, for undo and redo.
    func snapshot() -> Any
    /// Puts back a state taken by ``snapshot()`` or ``commit()``, without notifying anyone.
    func restore(_ snapshot: Any)
    /// About how many bytes keeping `snapshot` (from ``snapshot()`` or ``commit()``) in an undo step
    /// costs: the history drops its oldest steps when their costs together pass ``History/memoryLimit``.
    func cost(of snapshot: Any) -> Int
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
