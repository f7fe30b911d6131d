import Flux

/// Whether any action settled on a dispatcher since the last time it was asked: the prompt saves the
/// session after an effect's callback only when the callback dispatched something.
///
/// ```swift
/// let commits = CommitCounter(shell.host.dispatcher)
/// … // callbacks run
/// if commits.takeChanged() { shell.acknowledgeEffect() }
/// ```
final class CommitCounter {
    private let stream: SettledCommits
    private var subscription: Int?
    private var count = 0

    /// Counts the settled commits of `dispatcher` from now on, for as long as the counter lives.
    init(_ dispatcher: Dispatcher) {
        stream = SettledCommits.of(dispatcher)
        subscription = stream.subscribe(skippingReplays: true) { [weak self] _ in self?.count += 1 }
    }

    deinit {
        if let subscription { stream.unsubscribe(subscription) }
    }

    /// Whether an action settled since the last call (or since the counter was made); starts over.
    func takeChanged() -> Bool {
        defer { count = 0 }
        return count > 0
    }
}
