/// Told of every action the dispatcher commits and every undo or redo step, after subscribers heard
/// it. Unlike a ``Middleware``, nothing is built for it on the dispatch path (no list of the stores that
/// changed), so it can watch every action of a tight loop at the cost of one call (a session's journal).
public protocol CommitObserver: AnyObject {
    /// After `action` was handled by every store, kept, and published.
    func didCommit(_ action: any Action, in dispatcher: Dispatcher)
    /// After an undo or redo step was applied and published.
    func didTravel(_ step: HistoryStep, in dispatcher: Dispatcher)
}
