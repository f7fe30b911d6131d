import Foundation

/// Records every settled action, undo and redo as JSON Lines, so that ``ActionReplayer`` can
/// reproduce exactly the same states in fresh stores.
///
/// ```swift
/// let recorder = ActionRecorder(recording: dispatcher) { line in file.write(line + "\n") }
/// …
/// recorder.stop()
/// ```
///
/// It reads the dispatcher's ``SettledCommits``: only what committed and can no longer be rolled back is
/// written — a failed action changed nothing, and the lines of a group, or of work run by
/// ``Dispatcher/allOrNothing(_:)``, come once it ends, and never when it is rolled back.
public final class ActionRecorder {
    private let write: (String) -> Void
    /// Weak: the stream holds the recorder (as the dispatcher held a middleware) until ``stop()``.
    private weak var stream: SettledCommits?
    private var subscription: Int?

    /// A recorder handing each line (without its newline) to `write`, from now until ``stop()`` (the
    /// dispatcher's stream keeps it until then); a line's time is the one its commit carries
    /// (``SettledCommits/clock``).
    public init(recording dispatcher: Dispatcher, write: @escaping (String) -> Void) {
        self.write = write
        let stream = SettledCommits.of(dispatcher)
        self.stream = stream
        subscription = stream.subscribe { commit in self.record(commit) }
    }

    /// How many lines have been written.
    public private(set) var count = 0

    /// Whether it still records.
    public var isRecording: Bool { subscription != nil }

    /// Stops recording: nothing is written from now on.
    public func stop() {
        guard let subscription else { return }
        stream?.unsubscribe(subscription)
        self.subscription = nil
    }

    private func record(_ commit: SettledCommit) {
        count += 1
        write(ActionLogEntry(commit).line)
    }
}
