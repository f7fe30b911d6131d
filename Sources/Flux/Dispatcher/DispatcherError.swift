/// A broken rule of the dispatcher, or a store that failed on an action.
///
/// Every case leaves every store as it was before the dispatch.
public enum DispatcherError: Error, CustomStringConvertible {
    /// A store handler (or middleware before dispatch) tried to dispatch while an action was being handled.
    case dispatchInsideHandler(action: String, current: String)
    /// `waitFor` was called while no action was being dispatched.
    case waitForOutsideDispatch
    /// Stores wait for each other; `stores` lists the cycle, its first store repeated at the end.
    case waitForCycle(stores: [String])
    /// The token is not (or no longer) registered.
    case unknownToken(DispatchToken)
    /// A store's handler threw; every store touched by the action has been restored.
    case storeFailed(store: String, action: String, underlying: any Error)
    /// A middleware refused the action.
    case rejected(action: String, reason: String)
    /// Undo or redo was asked for while an action was being dispatched.
    case historyDuringDispatch
    /// Subscribers queued follow-up actions `limit` times in a row without settling (one dispatches on
    /// every change, say); the rest of the queue, `action` first, was dropped.
    case followUpsDidNotSettle(action: String, limit: Int)

    public var description: String {
        switch self {
        case let .dispatchInsideHandler(action, current):
            return "cannot dispatch '\(action)' while '\(current)' is being handled"
        case .waitForOutsideDispatch:
            return "waitFor can only be called while an action is being dispatched"
        case let .waitForCycle(stores):
            return "waitFor cycle: " + stores.joined(separator: " → ")
        case let .unknownToken(token):
            return "unknown dispatch token \(token)"
        case let .storeFailed(store, action, underlying):
            return "store '\(store)' failed on '\(action)': \(Self.describe(underlying))"
        case let .rejected(action, reason):
            return "'\(action)' rejected: \(reason)"
        case .historyDuringDispatch:
            return "cannot undo or redo while an action is being dispatched"
        case let .followUpsDidNotSettle(action, limit):
            return "follow-up actions did not settle after \(limit) in a row (a subscriber dispatches on every change?); '\(action)' and the rest of the queue were dropped"
        }
    }

    /// The error's own words: its description when it has one.
    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
