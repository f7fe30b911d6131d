import Flux
import Testing

/// Runs `body`, which should dispatch an action a store refuses, and returns the store's own error
/// (unwrapped from the dispatcher's `storeFailed`) with the dispatcher's full message.
func refusal(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> (error: any Error, message: String)? {
    do {
        try body()
        Testing.Issue.record("expected the action to be refused", sourceLocation: sourceLocation)
    } catch let error as DispatcherError {
        if case let .storeFailed(_, _, underlying) = error {
            return (underlying, error.description)
        }
        Testing.Issue.record("expected a store to refuse the action, got \(error)", sourceLocation: sourceLocation)
    } catch {
        Testing.Issue.record("expected a dispatcher error, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
