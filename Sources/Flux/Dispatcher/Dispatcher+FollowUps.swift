/// Follow-ups: an action a subscriber dispatches while the dispatcher notifies is queued, and runs
/// after the current one, in order, never re-entrantly.
extension Dispatcher {
    /// An action a subscriber dispatched, run once the current one is done; with the group it was
    /// queued in, if a subscriber's `group` queued it.
    struct FollowUp {
        let action: any Action
        let group: OpenGroup?
    }

    /// Runs the queued actions until none is left, or drops the queue as a loop past ``followUpLimit``.
    func drainFollowUps() {
        guard !draining else { return }
        draining = true
        isFollowUp = true
        defer {
            draining = false
            isFollowUp = false
        }
        var performed = 0
        while let next = hot.followUps.popFirst() {
            performed += 1
            guard performed <= followUpLimit else {
                hot.followUps.removeAll()
                onFollowUpError(next.action, DispatcherError.followUpsDidNotSettle(action: next.action.name, limit: followUpLimit))
                return
            }
            do {
                if let queued = next.group {
                    // The actions a subscriber queued inside `flux.group`: one group, all or nothing.
                    var batch = [next.action]
                    while let first = hot.followUps.first, first.group === queued { batch.append(hot.followUps.removeFirst().action) }
                    try group(queued.label) { for action in batch { try perform(action) } }
                } else {
                    try perform(next.action)
                }
            } catch {
                onFollowUpError(next.action, error)
            }
        }
    }
}
