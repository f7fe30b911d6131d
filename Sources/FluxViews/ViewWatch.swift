import Flux
import FluxTable

extension ViewProvider {
    /// Watches this view: after every change of its store, builds the model of the state the store
    /// published, diffs it with the last model and calls `onChange` with the diff, the last model and the
    /// new one when the diff is not empty.
    ///
    /// A model that fails to build goes to `onError`, and the last model stays the one to diff with.
    ///
    /// - Throws: when the store cannot be found or the model of its state now fails: nothing is watched.
    public func watch(
        onChange: @escaping (TableDiff, TableViewModel, TableViewModel) -> Void,
        onError: @escaping (any Error) -> Void
    ) throws -> StoreSubscription {
        var last: TableViewModel?
        var firstError: (any Error)?
        let subscription = try subscribe { result in
            let next: TableViewModel
            do {
                next = try result.get()
            } catch {
                // The first model is built while subscribing: its error is thrown, not reported.
                if last == nil { firstError = error } else { onError(error) }
                return
            }
            guard let old = last else {
                last = next
                return
            }
            last = next
            let changes = diff(old, next)
            if !changes.isEmpty { onChange(changes, old, next) }
        }
        if let firstError {
            subscription.cancel()
            throw firstError
        }
        return subscription
    }
}
