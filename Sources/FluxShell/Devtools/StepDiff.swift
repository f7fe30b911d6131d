import Flux

/// What one step of the undo history changed, read from the states the history keeps: a step holds
/// each touched store's state before it (or, once undone, after it); the other side is the state the
/// next step touching that store holds, or the store's state now.
enum StepDiff {
    /// The diffs of step `index`, counting `undo` (oldest first) then `redo` (the next to redo first,
    /// that is `redo` reversed).
    static func diffs(ofStep index: Int, undo: [HistoryEntry], redo: [HistoryEntry]) -> [StateDiff] {
        let entries = undo + redo.reversed()
        let done = undo.count
        // A step restored from a session may hold its states as saved text until read (DeferredState).
        try? entries[index].resolveDeferred()
        return entries[index].changes.compactMap { change -> StateDiff? in
            guard let store = change.target as? any InspectableStore else { return nil }
            let holding = { (entry: HistoryEntry) -> Any? in
                guard entry.changes.contains(where: { $0.target === change.target }) else { return nil }
                try? entry.resolveDeferred()
                return entry.changes.first { $0.target === change.target }?.snapshot
            }
            let other: Any
            if index < done {
                other = entries[(index + 1) ..< done].lazy.compactMap(holding).first ?? change.target.snapshot()
            } else {
                other = entries[done ..< index].reversed().lazy.compactMap(holding).first ?? change.target.snapshot()
            }
            guard let held = value(of: change.snapshot, in: store), let now = value(of: other, in: store) else { return nil }
            return index < done ? StateDiff(store: store.name, old: held, new: now)
                                : StateDiff(store: store.name, old: now, new: held)
        }
    }

    private static func value(of snapshot: Any, in store: any InspectableStore) -> StateValue? {
        store.encodable(snapshot: snapshot).flatMap { try? StateValue(encoding: $0) }
    }
}
