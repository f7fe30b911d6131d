/// Something registered with a ``Dispatcher``: a store, or a bare callback.
///
/// The dispatcher drives a target through one transaction per action: ``begin()``, then
/// ``handle(_:in:)``, then ``rollback()`` when any target failed or ``commit(recording:)`` when all
/// succeeded; once every target has handled the action it calls ``publish()`` so observers see the result.
/// A target keeps its own undo and redo states (in an ``UndoStates``); the ``History`` keeps which
/// targets each step touched and moves them with ``travel(_:)`` and the `forget…` calls.
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
    /// Keeps the change. Returns nil when the state is unchanged; otherwise, when `recording`, keeps
    /// the state from ``begin()`` as the newest undo state and returns what keeping it costs in bytes
    /// (0 when not recording).
    func commit(recording: Bool) -> Int?
    /// The state now (inside a dispatch, with this action's changes so far).
    func snapshot() -> Any
    /// Puts back the newest undo state (or redo state), keeping the state now as the newest state of
    /// the other kind, without notifying anyone; returns what keeping that state costs in bytes.
    func travel(_ step: HistoryStep) -> Int
    /// Forgets the oldest undo state: the history dropped its oldest step.
    func forgetOldestUndo()
    /// Forgets every redo state: a new step was recorded.
    func forgetRedo()
    /// Forgets every undo and redo state.
    func forgetHistory()
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
