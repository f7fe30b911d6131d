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

    /// Puts each target in `states` to its state, as one undo step labelled `label` (a travel to a point
    /// of a session's journal, or its line replayed): the targets are published, then the stream of
    /// settled commits and the middleware hear it. A target that keeps no state of the dispatcher's is left as it is.
    package func setStates(_ states: [(target: any DispatchTarget, state: Any)], label: String) throws {
        guard hot.phase == .idle, hot.openGroup == nil else { throw DispatcherError.historyDuringDispatch }
        let changes = states.compactMap { change in
            (change.target as? any TransactionalTarget).map { (target: $0, state: change.state) }
        }
        let entry = HistoryEntry(label: label, changes: changes.map { ($0.target, $0.target.snapshot()) })
        for (target, state) in changes { target.restore(state) }
        if history.isRecording, !entry.isEmpty, let note = history.record(entry) { onNote(note) }

        publishStep({ for (target, _) in changes { target.publish() } }) {
            hot.commits?.didSetStates(states, label: label, in: self)
            for hook in middleware { hook.didSetStates(states, label: label, in: self) }
        }
    }

    private func travel(_ step: HistoryStep) throws -> Bool {
        guard hot.phase == .idle, hot.openGroup == nil else { throw DispatcherError.historyDuringDispatch }
        try history.resolveNext(step)
        guard let entry = step == .undo ? history.popUndo() : history.popRedo() else { return false }
        let reverse = entry.swapped()
        var note: String?
        if step == .undo { history.pushRedo(reverse) } else { note = history.pushUndo(reverse) }
        if let note { onNote(note) }

        publishStep({ entry.forEachTarget { $0.publish() } }) {
            hot.commits?.didTravel(step, label: entry.label, in: self)
            for hook in middleware { hook.didTravel(step, label: entry.label, in: self) }
        }
        return true
    }

    /// Publishes the stores a step put back, then tells the stream of settled commits and the middleware; what
    /// subscribers dispatched meanwhile runs after, as follow-ups.
    private func publishStep(_ publish: () -> Void, then tell: () -> Void) {
        hot.phase = .notifying
        if !hot.isSilent { publish() }
        tell()
        hot.phase = .idle
        if !hot.followUps.isEmpty { drainFollowUps() }
    }
}
