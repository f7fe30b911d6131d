import Flux
import Foundation
import GRDB

extension Session {
    /// Gives every registered store its saved state instead of its initial one, and puts back the undo
    /// history; subscribers hear the restored states. A store registered later (a script defining it
    /// again) gets its saved state when it is registered, and the history comes back once every store
    /// it changes is there — unless a new step was recorded before.
    ///
    /// A saved state that no longer decodes (the store's state type changed) leaves that store at its
    /// initial state, with a message naming it; the saved text is kept in the database.
    public func restore() {
        do {
            (pendingStates, pendingSteps) = try database.read { db in
                let states = try Row.fetchAll(db, sql: "SELECT store, format, state, seq FROM state")
                let steps = try Row.fetchAll(db, sql: "SELECT stack, changes FROM history ORDER BY position")
                return (Dictionary(states.map { ($0["store"] as String, $0) }, uniquingKeysWith: { first, _ in first }),
                        try steps.map { (stack: $0["stack"] as String, step: try SavedStep.decode($0["changes"])) })
            }
        } catch {
            report("session '\(name)': cannot read \(path): \(Self.describe(error)); the stores start empty")
            return
        }
        restoredHistoryVersion = dispatcher.history.version
        for store in dispatcher.stores { restoreState(of: store) }
        restoreHistory()
        let previous = dispatcher.didRegister
        dispatcher.didRegister = { [unowned self] target in
            previous?(target)
            if let store = target as? any StoreProtocol {
                restoreState(of: store)
                // A store defined while journalling: a goto from here on finds its state in a snapshot.
                if dispatcher.commitObserver === journal { journal.snapshot() }
            }
            restoreHistory()
        }
    }

    private func restoreState(of store: any StoreProtocol) {
        guard let row = pendingStates.removeValue(forKey: store.name), let persistent = store as? any PersistentState else { return }
        let format: String = row["format"]
        do {
            guard persistent.reads(format: format) else {
                throw SessionError("saved as \(format), the store now keeps \(persistent.stateFormat)")
            }
            let (state, converted) = try persistent.decodeState(row["state"], savedAs: format)
            persistent.restore(state)
            store.publish()
            if let converted {
                // The state as saved stays in the database, for :session restore-store.
                keepStale(row, reason: converted)
                report("session '\(name)': store '\(store.name)' \(converted); "
                    + "its state as saved before is kept (:session restore-store \(store.name) converts it again)")
            }
        } catch {
            keepStale(row, reason: Self.describe(error))
            report("session '\(name)': the saved state of store '\(store.name)' no longer decodes (\(Self.describe(error))); "
                + "it starts from its initial state, and the old state stays in \(path)")
        }
    }

    /// The stores the saved undo history waits for, sorted: it changes them and they are not defined
    /// (yet). Empty when it is back, or was given up.
    public var historyWaitsFor: [String] {
        guard let steps = pendingSteps else { return [] }
        return Set(steps.flatMap { $0.step.changes.map(\.store) }).filter { dispatcher.store(named: $0) == nil }.sorted()
    }

    /// Puts back the saved history once every store it changes is registered, or as much of it as fits
    /// when a new step comes first. A step that no longer fits (its store is gone, or its state no
    /// longer decodes) is dropped with every step beyond it — undoing past it would skip its change —
    /// and the steps nearer to now are kept, with a message saying how many went.
    func restoreHistory() {
        guard let steps = pendingSteps else { return }
        let history = dispatcher.history
        let stepCame = history.version != restoredHistoryVersion && !steps.isEmpty
        if !stepCame, !historyWaitsFor.isEmpty { return }
        pendingSteps = nil
        var undo: [HistoryEntry] = [], redo: [HistoryEntry] = [], dropped = 0, reason: String?
        // Both stacks are saved farthest from now first.
        for (stack, step) in steps {
            do {
                let entry = try step.entry(in: dispatcher)
                if stack == "redo" { redo.append(entry) } else { undo.append(entry) }
            } catch {
                if stack == "redo" { dropped += redo.count + 1; redo = [] } else { dropped += undo.count + 1; undo = [] }
                reason = reason ?? Self.describe(error)
            }
        }
        if stepCame {
            // The saved steps go below the new ones; the saved redo steps are past a new step.
            let now = history.steps
            dropped += redo.count
            history.replaceSteps(undo: undo + now.undo, redo: now.redo)
            reason = reason ?? "a new step came first"
        } else {
            history.replaceSteps(undo: undo, redo: redo)
            restoredHistoryVersion = history.version
            markHistorySaved()
        }
        if dropped > 0, let reason {
            report("session '\(name)': the saved undo history no longer fits the stores (\(reason)): "
                + "\(dropped) of its \(steps.count) steps were dropped, each with those beyond it; \(steps.count - dropped) kept")
        }
    }

    /// Copies a state that no longer decodes into `staleState`, where later saves of the store do not
    /// overwrite it.
    private func keepStale(_ row: Row, reason: String) {
        _ = try? database.write { db in
            try db.execute(sql: "INSERT INTO staleState (store, format, state, seq, reason, keptAt) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [row["store"], row["format"], row["state"], row["seq"], reason, clock()])
        }
    }
}
