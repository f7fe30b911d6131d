/// How a target takes part in a dispatch's transaction and in undo: the witness the dispatcher, the
/// history and a session drive, and nothing an app calls (package access, so it is not public API).
///
/// One transaction per action: ``begin()``, then ``DispatchTarget/handle(_:in:)``, then
/// ``rollback()`` when any target failed or ``commit()`` when all succeeded. Undo, redo, groups and
/// all-or-nothing work use ``snapshot()`` and ``restore(_:)``.
package protocol TransactionalTarget: DispatchTarget {
    /// Remembers the state now: an action is about to be handled.
    func begin()
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
}

/// The witness of a target without one (defined outside the package): it keeps no state of the
/// dispatcher's, so there is nothing to roll back or undo.
final class StatelessTransaction: TransactionalTarget {
    let target: any DispatchTarget

    init(_ target: any DispatchTarget) { self.target = target }

    var name: String { target.name }
    func handles(_ actionName: String) -> Bool { target.handles(actionName) }
    func handle(_ action: any Action, in dispatcher: Dispatcher) throws { try target.handle(action, in: dispatcher) }
    func publish() { target.publish() }
    func begin() {}
    func rollback() {}
    func commit() -> Any? { nil }
    func snapshot() -> Any { () }
    func restore(_ snapshot: Any) {}
    func cost(of snapshot: Any) -> Int { 0 }
}
