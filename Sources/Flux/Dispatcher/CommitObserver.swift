/// Told of every action the dispatcher commits and every undo or redo step, after subscribers heard
/// it. Unlike a ``Middleware``, nothing is built for it on the dispatch path (no list of the stores that
/// changed), so it can watch every action of a tight loop at the cost of one call (a session's journal).
public protocol CommitObserver: AnyObject {
    /// After `action` was handled by every store, kept, and published.
    func didCommit(_ action: any Action, in dispatcher: Dispatcher)
    /// After an undo or redo step was applied and published.
    func didTravel(_ step: HistoryStep, in dispatcher: Dispatcher)
    /// After ``Dispatcher/setStates(_:label:)`` put targets to the states given and published them.
    func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher)
    /// After a failed group took back the last `actions` committed actions (all since its start, so
    /// none of them has been saved: the dispatcher is not settled while a group is open).
    func didRollBack(_ actions: Int, in dispatcher: Dispatcher)
    /// Before ``Dispatcher/allOrNothing(_:)`` runs its work (calls nest); nothing is settled inside.
    func willRunAllOrNothing(in dispatcher: Dispatcher)
    /// After it: when `kept` is false, what was committed since the matching call did not happen.
    func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher)
}

extension CommitObserver {
    public func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher) {}
}
