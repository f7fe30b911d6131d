/// Something registered with a ``Dispatcher``: a store, or a bare callback.
///
/// The dispatcher hands a target every action it ``handles(_:)`` and, once every target has handled
/// the action, calls ``publish()`` so observers see the result. How a target takes part in the
/// dispatch's transaction (rollback, undo) is the package's own business: ``Store`` does it; a target
/// defined outside the package keeps no state the dispatcher must restore.
public protocol DispatchTarget: AnyObject {
    /// The name used in messages, in `waitFor` cycles and by the shell.
    var name: String { get }
    /// Whether this target wants actions of this name.
    func handles(_ actionName: String) -> Bool
    /// Applies the action; throwing refuses it, and the dispatch changes nothing anywhere.
    func handle(_ action: any Action, in dispatcher: Dispatcher) throws
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
