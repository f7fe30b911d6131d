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
            guard persistent.stateFormat == format else {
                throw SessionError("saved as \(format), the store now keeps \(persistent.stateFormat)")
            }
            persistent.restore(try persistent.decodeState(row["state"]))
            store.publish()
        } catch {
            keepStale(row, reason: Self.describe(error))
            report("session '\(name)': the saved state of store '\(store.name)' no longer decodes (\(Self.describe(error))); "
                + "it starts from its initial state, and the old state stays in \(path)")
        }
    }

    /// Puts back the saved history once every store it changes is registered; drops it when a new
    /// step came first, or when it no longer decodes.
    func restoreHistory() {
        guard let steps = pendingSteps else { return }
        let history = dispatcher.history
        guard history.version == restoredHistoryVersion || steps.isEmpty else {
            pendingSteps = nil
            report("session '\(name)': the saved undo history was dropped: a new step came before every store it changes was defined again")
            return
        }
        let needed = Set(steps.flatMap { $0.step.changes.map(\.store) })
        guard needed.allSatisfy({ dispatcher.store(named: $0) != nil }) else { return }
        pendingSteps = nil
        do {
            var undo: [HistoryEntry] = [], redo: [HistoryEntry] = []
            for (stack, step) in steps {
                let entry = try step.entry(in: dispatcher)
                if stack == "redo" { redo.append(entry) } else { undo.append(entry) }
            }
            history.replaceSteps(undo: undo, redo: redo)
            restoredHistoryVersion = history.version
            markHistorySaved()
        } catch {
            report("session '\(name)': the undo history no longer fits the stores (\(Self.describe(error))); it starts empty")
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
