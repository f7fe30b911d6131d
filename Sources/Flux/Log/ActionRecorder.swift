import Foundation

/// Records every dispatched action, undo and redo as JSON Lines, so that ``ActionReplayer`` can
/// reproduce exactly the same states in fresh stores.
///
/// ```swift
/// let recorder = ActionRecorder { line in file.write(line + "\n") }
/// dispatcher.middleware.append(recorder)
/// ```
///
/// Only actions that succeeded are recorded: a failed one changed nothing. The lines of a group, or of
/// work run by ``Dispatcher/allOrNothing(_:)``, are held until it ends, and dropped when it is rolled back.
public final class ActionRecorder: Middleware {
    private let write: (String) -> Void
    private let clock: () -> Double
    /// Lines not written yet: of the group open now, or of all-or-nothing work still running.
    private var held: [String] = []
    /// How many lines were held when each running all-or-nothing work began.
    private var marks: [Int] = []

    /// A recorder handing each line (without its newline) to `write`; `clock` gives the time in seconds.
    public init(clock: @escaping () -> Double = { Date().timeIntervalSince1970 }, write: @escaping (String) -> Void) {
        self.clock = clock
        self.write = write
    }

    /// How many lines have been written.
    public private(set) var count = 0

    public func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        var entry = ActionLogEntry(action: action, time: clock(), group: dispatcher.currentGroup, isFollowUp: dispatcher.isFollowUp)
        entry.isEffect = dispatcher.isEffect
        emit(entry)
    }

    public func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        emit(ActionLogEntry(step: step, time: clock()))
    }

    public func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher) {
        emit(ActionLogEntry(states: states, label: label, time: clock()))
    }

    public func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher) {
        held.removeLast(min(actions, held.count))
    }

    public func didEndGroup(_ label: String, in dispatcher: Dispatcher) {
        if marks.isEmpty { writeHeld() }
    }

    public func willRunAllOrNothing(in dispatcher: Dispatcher) {
        marks.append(held.count)
    }

    public func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        let mark = marks.popLast() ?? 0
        if !kept {
            held.removeLast(held.count - min(mark, held.count))
        } else if marks.isEmpty, dispatcher.currentGroup == nil {
            writeHeld()
        }
    }

    private func emit(_ entry: ActionLogEntry) {
        if entry.group != nil || !marks.isEmpty {
            held.append(entry.line)
            return
        }
        writeHeld()
        count += 1
        write(entry.line)
    }

    private func writeHeld() {
        for line in held {
            count += 1
            write(line)
        }
        held.removeAll()
    }
}
