import Foundation

/// Records every dispatched action, undo and redo as JSON Lines, so that ``ActionReplayer`` can
/// reproduce exactly the same states in fresh stores.
///
/// ```swift
/// let recorder = ActionRecorder { line in file.write(line + "\n") }
/// dispatcher.middleware.append(recorder)
/// ```
///
/// Only actions that succeeded are recorded: a failed one changed nothing. The actions of a group
/// are written when it ends, and not at all when it fails and is rolled back.
public final class ActionRecorder: Middleware {
    private let write: (String) -> Void
    private let clock: () -> Double
    /// The lines of the group open now.
    private var grouped: [String] = []

    /// A recorder handing each line (without its newline) to `write`; `clock` gives the time in seconds.
    public init(clock: @escaping () -> Double = { Date().timeIntervalSince1970 }, write: @escaping (String) -> Void) {
        self.clock = clock
        self.write = write
    }

    /// How many lines have been written.
    public private(set) var count = 0

    public func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        emit(ActionLogEntry(action: action, time: clock(), group: dispatcher.currentGroup, isFollowUp: dispatcher.isFollowUp))
    }

    public func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        emit(ActionLogEntry(step: step, time: clock()))
    }

    public func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher) {
        grouped.removeLast(min(actions, grouped.count))
    }

    public func didEndGroup(_ label: String, in dispatcher: Dispatcher) {
        flushGroup()
    }

    private func emit(_ entry: ActionLogEntry) {
        if entry.group != nil {
            grouped.append(entry.line)
            return
        }
        flushGroup()
        count += 1
        write(entry.line)
    }

    private func flushGroup() {
        for line in grouped {
            count += 1
            write(line)
        }
        grouped.removeAll()
    }
}
