/// A state an undo step keeps that is built only when it is needed: a session's saved step of a large
/// state stays the text it was saved as until an undo or redo reaches it (or `:show` reads it), so a
/// restart does not decode every state the history holds, and the history's memory counts the text,
/// not a built state per step.
package protocol DeferredState: AnyObject {
    /// The state, built; the same object for every call once built.
    ///
    /// - Throws: when it cannot be built (its text is damaged): the step cannot be taken.
    func resolve() throws -> Any
}

/// An undo or redo step whose deferred state could not be built: it is dropped with every step beyond
/// it (taking one past it would skip its change), and every store stays as it was.
public struct StepNotRestored: Error, CustomStringConvertible {
    /// The step's label.
    public let label: String
    /// How many steps went, the step included.
    public let dropped: Int
    /// `undo` or `redo`.
    public let step: HistoryStep
    /// Why its state could not be built.
    public let reason: String

    public var description: String {
        "the saved \(step.rawValue) step '\(label)' cannot be put back (\(reason)): it was dropped"
            + (dropped > 1 ? " with the \(dropped - 1) \(step.rawValue) step\(dropped == 2 ? "" : "s") beyond it" : "")
            + "; every store is as it was"
    }
}

extension HistoryEntry {
    /// Builds the step's deferred states in place (the boxes are shared by every copy of the step), all
    /// or none.
    package func resolveDeferred() throws {
        var deferred: [(box: KeptAny, state: any DeferredState)] = []
        forEachChange { change in
            if let box = change.kept as? KeptAny, let state = box.snapshot as? any DeferredState { deferred.append((box, state)) }
        }
        guard !deferred.isEmpty else { return }
        let built = try deferred.map { try $0.state.resolve() }
        for (index, item) in deferred.enumerated() { item.box.snapshot = built[index] }
    }
}

extension History {
    /// The step an undo or redo takes next, read without taking it.
    func next(_ step: HistoryStep) -> HistoryEntry? {
        step == .undo ? undoStack.newest : redoStack.last
    }

    /// Builds the deferred states of the step an undo or redo takes next; when one cannot be built, that
    /// step and every step beyond it on its stack are dropped and ``StepNotRestored`` says so.
    func resolveNext(_ step: HistoryStep) throws {
        guard let entry = next(step) else { return }
        do {
            try entry.resolveDeferred()
        } catch {
            let dropped = dropStack(step)
            throw StepNotRestored(label: entry.label, dropped: dropped, step: step, reason: "\(error)")
        }
    }
}
