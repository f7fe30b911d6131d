/// Undo groups: several actions that undo as one step, all or nothing.
extension Dispatcher {
    // A class: the hot path only asks whether a group is open, and an optional reference answers that
    // without copying the group.
    final class OpenGroup {
        let id: Int
        let label: String
        var entry: HistoryEntry
        /// How many actions the group has dispatched successfully: those a rollback takes back.
        var performed = 0

        init(id: Int, label: String) {
            self.id = id
            self.label = label
            entry = HistoryEntry(label: label)
            entry.actions.isGroup = true
        }
    }

    /// Runs `body` so that every action it dispatches undoes as one step labelled `label`, all or nothing.
    ///
    /// Groups nest: an inner group joins the outer one. If `body` throws, every action it dispatched is
    /// rolled back (subscribers hear the restored states) and no undo step remains; the error is rethrown.
    public func group<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        if hot.phase == .notifying, hot.openGroup == nil, queueingGroup == nil {
            // A subscriber's group: its actions are queued now and run later, together.
            let queued = OpenGroup(id: nextGroupID, label: label)
            nextGroupID += 1
            queueingGroup = queued
            defer { queueingGroup = nil }
            do {
                return try body()
            } catch {
                hot.followUps.removeAll { $0.group === queued }
                throw error
            }
        }
        if let outer = hot.openGroup {
            // Joining the outer group: the inner one gathers the states from before its own actions, so
            // that it can roll back alone, and hands them on to the outer one.
            let before = outer.entry, performed = outer.performed
            outer.entry = HistoryEntry(label: outer.label)
            do {
                let result = try body()
                let inner = outer.entry
                outer.entry = before
                outer.entry.merge(inner)
                return result
            } catch {
                let inner = outer.entry
                outer.entry = before
                restore(inner.changes, actions: outer.performed - performed, label: label)
                outer.performed = performed
                throw error
            }
        }
        let group = OpenGroup(id: nextGroupID, label: label)
        hot.openGroup = group
        nextGroupID += 1
        let result: T
        do {
            result = try body()
        } catch {
            hot.openGroup = nil
            restore(group.entry.changes, actions: group.performed, label: label)
            throw error
        }
        hot.openGroup = nil
        if !group.entry.isEmpty, let note = history.record(group.entry) { onNote(note) }
        hot.commits?.didEndGroup(in: self)
        for hook in middleware { hook.didEndGroup(label, in: self) }
        return result
    }
}
