/// Undo and redo: travel through the ``History``, publishing every store a step puts back.
extension Dispatcher {
    /// Reverts the last step: every store it touched returns to its state before, and is published.
    ///
    /// - Returns: false when there was nothing to undo.
    @discardableResult
    public func undo() throws -> Bool {
        try travel(.undo)
    }

    /// Re-applies the last undone step.
    ///
    /// - Returns: false when there was nothing to redo.
    @discardableResult
    public func redo() throws -> Bool {
        try travel(.redo)
    }

    private func travel(_ step: HistoryStep) throws -> Bool {
        guard phase == .idle, openGroup == nil else { throw DispatcherError.historyDuringDispatch }
        guard let entry = step == .undo ? history.popUndo() : history.popRedo() else { return false }
        let reverse = entry.swapped()
        var note: String?
        if step == .undo { history.pushRedo(reverse) } else { note = history.pushUndo(reverse) }
        if let note { onNote(note) }

        phase = .notifying
        entry.forEachTarget { $0.publish() }
        for hook in middleware { hook.didTravel(step, label: entry.label, in: self) }
        commitObserver?.didTravel(step, in: self)
        phase = .idle
        if !followUps.isEmpty { drainFollowUps() }
        return true
    }
}
