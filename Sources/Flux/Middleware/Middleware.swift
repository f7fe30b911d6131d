/// Hooks around every dispatch: observe actions, or reject them before any store sees them.
///
/// Every method has an empty default, so a middleware implements only what it needs.
///
/// ```swift
/// final class ReadOnly: Middleware {
///     func willDispatch(_ action: any Action, in dispatcher: Dispatcher) throws {
///         throw DispatcherError.rejected(action: action.name, reason: "read-only session")
///     }
/// }
/// dispatcher.middleware.append(ReadOnly())
/// ```
public protocol Middleware: AnyObject {
    /// Before any store handles `action`; throwing rejects it and nothing changes.
    func willDispatch(_ action: any Action, in dispatcher: Dispatcher) throws
    /// After every store handled `action` and its changes were kept; `changed` names the stores that changed.
    func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher)
    /// After `action` failed and every store was restored.
    func didFail(_ action: any Action, error: any Error, in dispatcher: Dispatcher)
    /// After an undo or redo step was applied.
    func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher)
    /// After ``Dispatcher/setStates(_:label:)`` put targets to the states given, as one undo step.
    func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher)
    /// After a group labelled `label` failed: its last `actions` dispatched actions were rolled back.
    func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher)
    /// After the outermost group labelled `label` ended without an error: its actions are kept.
    func didEndGroup(_ label: String, in dispatcher: Dispatcher)
    /// Before ``Dispatcher/allOrNothing(_:)`` runs its work (calls nest).
    func willRunAllOrNothing(in dispatcher: Dispatcher)
    /// After that work: `kept` is false when it failed and every store and the history were put back,
    /// so whatever the middleware heard since the matching ``willRunAllOrNothing(in:)`` did not happen.
    func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher)
}

/// A move through the undo history.
public enum HistoryStep: String, Sendable {
    case undo, redo
}

extension Middleware {
    public func willDispatch(_ action: any Action, in dispatcher: Dispatcher) throws {}
    public func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {}
    public func didFail(_ action: any Action, error: any Error, in dispatcher: Dispatcher) {}
    public func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {}
    public func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher) {}
    public func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher) {}
    public func didEndGroup(_ label: String, in dispatcher: Dispatcher) {}
    public func willRunAllOrNothing(in dispatcher: Dispatcher) {}
    public func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {}
}
