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
    private var held = SettlingQueue<String>()

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
        held.rollBack(actions)
    }

    public func didEndGroup(_ label: String, in dispatcher: Dispatcher) {
        for line in held.endGroup() { writeLine(line) }
    }

    public func willRunAllOrNothing(in dispatcher: Dispatcher) {
        held.beginAllOrNothing()
    }

    public func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        for line in held.endAllOrNothing(kept: kept, inGroup: dispatcher.currentGroup != nil) { writeLine(line) }
    }

    private func emit(_ entry: ActionLogEntry) {
        guard !held.holds(entry.line, inGroup: entry.group != nil) else { return }
        for line in held.takeHeld() { writeLine(line) }
        writeLine(entry.line)
    }

    private func writeLine(_ line: String) {
        count += 1
        write(line)
    }
}
