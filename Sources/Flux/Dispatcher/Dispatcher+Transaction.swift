/// A dispatch is a transaction: every target an action touched commits together, or, when one
/// fails, rolls back together; ``Dispatcher/allOrNothing(_:)`` widens that to any work.
extension Dispatcher {
    /// Puts every target the failed action touched back to its state from before, latest first.
    func rollBackTouched() {
        for index in (0 ..< hot.touchedCount).reversed() {
            hot.touched[index].transaction.rollback()
        }
        hot.touchedCount = 0
    }

    /// Commits every target the action touched. Each changed target's state from before the action is
    /// kept for undo, unless an open group already holds one from before its first action; `touched`
    /// then keeps only the changed targets, in order, to publish them.
    func keepChanges(_ action: any Action, _ name: String) {
        if hot.touchedCount == 1, hot.openGroup == nil { return keepOnlyChange(hot.touched[0], action, name) }
        let group = hot.openGroup
        let recording = history.isRecording
        // The step's states: the first inline, any others in an array (rarely needed, so never allocated).
        var first: (registration: Registration, kept: KeptState)?
        var rest: [HistoryEntry.Change]?
        var cost = 0
        var changed = 0
        for index in 0 ..< hot.touchedCount {
            let registration = hot.touched[index]
            // A group keeps states even with no undo history: it rolls back with them when it fails.
            let keeping = (recording || group != nil) && group?.entry.contains(registration.transaction) != true
            // The state goes in the box of the step the history dropped last, when it can.
            guard let kept = registration.lane.commit(registration.object, keeping, &history.undoStack.spare) else { continue }
            if let state = kept.state {
                if let group {
                    group.entry.append(registration.transaction, state, cost: kept.cost)
                } else if first == nil {
                    first = (registration, state)
                } else {
                    let change = HistoryEntry.Change(target: registration.transaction, kept: state)
                    if rest == nil { rest = [change] } else { rest!.append(change) }
                }
                cost += kept.cost
            }
            if changed != index { hot.touched[changed] = registration }
            changed += 1
        }
        hot.touchedCount = changed
        if let group {
            group.performed += 1
            if changed > 0 { group.entry.actions.append(action) }
        }
        guard let step = first.take() else { return }
        let note = rest == nil
            ? history.record(label: name, cost: cost, target: step.registration.transaction, kept: step.kept, single: action)
            : history.record(label: name, cost: cost, target: step.registration.transaction, kept: step.kept, rest: rest,
                             actions: StepActions(single: action))
        if let note { onNote(note) }
    }

    /// ``keepChanges(_:)`` for the usual action: one target touched, `registration`, no group open. Its
    /// state from before, when it changed, is the whole step: none of the bookkeeping for several is needed.
    func keepOnlyChange(_ registration: Registration, _ action: any Action, _ name: String) {
        let recording = history.isRecording
        var kept = registration.lane.commit(registration.object, recording, &history.undoStack.spare)
        guard kept != nil else {
            hot.touchedCount = 0
            return
        }
        // Taken out of the result, not bound from it: the box is moved on, not copied (a retain).
        guard let state = kept!.state.take() else { return } // changed, no undo history to keep it for
        if let note = history.record(label: name, cost: kept!.cost, target: registration.transaction, kept: state,
                                     single: action) {
            onNote(note)
        }
    }

    /// Puts each target back to its state and publishes it: a group's `actions` (or all-or-nothing work)
    /// undone without an undo step.
    func restore(_ states: [(target: any TransactionalTarget, snapshot: Any)], actions: Int, label: String) {
        for (target, state) in states.reversed() { target.restore(state) }
        let outer = hot.phase
        hot.phase = .notifying
        if !hot.isSilent { for (target, _) in states { target.publish() } }
        if actions > 0 {
            hot.commits?.didRollBack(actions, in: self)
            for hook in middleware { hook.didRollBack(actions, group: label, in: self) }
        }
        hot.phase = outer
    }

    /// Runs `body`, which may dispatch, undo and redo, all or nothing: when it throws, every store goes
    /// back to its state from before (and is published), the undo history too; the error is rethrown.
    ///
    /// For long work a user may stop half-way, such as replaying a log. Outside a dispatch or group only.
    public func allOrNothing<T>(_ body: () throws -> T) throws -> T {
        guard hot.phase == .idle, hot.openGroup == nil else { throw DispatcherError.historyDuringDispatch }
        let targets = registrations.map(\.transaction)
        let states = targets.map { $0.snapshot() }
        let steps = history.steps
        allOrNothingDepth += 1
        hot.commits?.willRunAllOrNothing(in: self)
        for hook in middleware { hook.willRunAllOrNothing(in: self) }
        let result: T
        do {
            result = try body()
        } catch {
            restore(zip(targets, states).map { ($0, $1) }, actions: 0, label: "")
            history.replaceSteps(undo: steps.undo, redo: steps.redo)
            endAllOrNothing(kept: false)
            throw error
        }
        endAllOrNothing(kept: true)
        return result
    }

    /// Tells the stream of settled commits and the middleware how the work of ``allOrNothing(_:)`` ended.
    private func endAllOrNothing(kept: Bool) {
        allOrNothingDepth -= 1
        hot.commits?.didRunAllOrNothing(kept: kept, in: self)
        for hook in middleware { hook.didRunAllOrNothing(kept: kept, in: self) }
    }
}
