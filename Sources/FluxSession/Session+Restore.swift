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
        var problems: [String] = []
        // The states and the undo history are read apart: a damaged page under the history (or under
        // the journal, which is not read here) costs the history, never the states.
        do {
            pendingStates = try database.read { db in try readStates(db, problems: &problems) }
        } catch {
            report("session '\(name)': cannot read \(path): \(Self.describe(error)); the stores start empty")
            return
        }
        do {
            pendingSteps = try database.read { db in try readSteps(db) }
        } catch {
            problems.append("the saved undo history cannot be read (\(Self.describe(error))); the undo history starts empty")
        }
        for problem in problems { report("session '\(name)': \(problem)") }
        restoredHistoryVersion = dispatcher.history.version
        for store in dispatcher.stores { restoreState(of: store) }
        restoreHistory()
        let previous = dispatcher.didRegister
        dispatcher.didRegister = { [weak self] target in
            previous?(target)
            guard let self else { return }
            if let store = target as? any StoreProtocol {
                restoreState(of: store)
                // A store defined while journalling: a goto from here on finds its state in a snapshot.
                if isJournalling { journal.snapshot() }
            }
            restoreHistory()
        }
    }

    /// The saved states by store; a row whose columns are damaged is said in `problems` and left in
    /// the file (its store starts from its initial state).
    private func readStates(_ db: GRDB.Database, problems: inout [String]) throws -> [String: SavedState] {
        var states: [String: SavedState] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT store, format, state, seq FROM state") {
            let checked = SessionRow(row, table: "state", key: "store")
            do {
                let store = try checked.text("store")
                let text = try chunks.text(try checked.text("state"), table: "state", key: checked.key, currentOf: store, in: db)
                let state = SavedState(store: store, format: try checked.text("format"), state: text, row: row)
                states[state.store] = states[state.store] ?? state
            } catch {
                problems.append("\(error): that store starts from its initial state, and the row stays in the file")
            }
        }
        return states
    }

    /// The saved undo and redo steps, farthest from now first; a row that is damaged comes as a step
    /// with its problem, so that only the steps beyond it are dropped with it.
    private func readSteps(_ db: GRDB.Database) throws -> [PendingStep] {
        var steps: [PendingStep] = []
        for row in try Row.fetchAll(db, sql: "SELECT position, stack, changes FROM history ORDER BY position") {
            let checked = SessionRow(row, table: "history", key: "position")
            // A position past the range fluxsh numbers steps in is damage: new steps could not go after it.
            let key = try? checked.integer("position", in: Session.stepKeyRange)
            // A row whose stack is unreadable is taken for one of the stack of the row before it.
            let stack = (try? checked.text("stack")).flatMap { ["undo", "redo"].contains($0) ? $0 : nil }
                ?? steps.last?.stack ?? "undo"
            do {
                guard ["undo", "redo"].contains(try checked.text("stack")) else {
                    throw DamagedRow(table: "history", key: checked.key, problem: "column 'stack' is neither 'undo' nor 'redo'")
                }
                let json = try checked.text("changes")
                let step: SavedStep
                do {
                    step = try SavedStep.decode(json)
                } catch {
                    throw DamagedRow(table: "history", key: checked.key, problem: "column 'changes' is not a saved step (\(error))")
                }
                // A large state stays its list of pieces (DeferredSavedState), whose pieces are checked to be there.
                steps.append(PendingStep(stack: stack, key: key, problem: nil, rowKey: checked.key,
                                         step: try step.storing { text, _ in try chunks.checked(text, table: "history", key: checked.key, in: db) }))
            } catch {
                steps.append(PendingStep(stack: stack, key: key, problem: "\(error)", rowKey: checked.key, step: nil))
            }
        }
        return steps
    }

    private func restoreState(of store: any StoreProtocol) {
        guard let saved = pendingStates.removeValue(forKey: store.name), let persistent = store as? any PersistentState else { return }
        do {
            guard persistent.reads(format: saved.format) else {
                throw SessionError("saved as \(saved.format), the store now keeps \(persistent.stateFormat)")
            }
            let (state, converted) = try persistent.decodeState(saved.state, savedAs: saved.format)
            persistent.restore(state)
            store.publish()
            if let converted {
                // The state as saved stays in the database, for :session restore-store.
                keepStale(saved.row, reason: converted)
                report("session '\(name)': store '\(store.name)' \(converted); "
                    + "its state as saved before is kept (:session restore-store \(store.name) converts it again)")
            }
        } catch {
            keepStale(saved.row, reason: Self.describe(error))
            report("session '\(name)': the saved state of store '\(store.name)' no longer decodes (\(Self.describe(error))); "
                + "it starts from its initial state, and the old state stays in \(path)")
        }
    }

    /// The stores the saved undo history waits for, sorted: it changes them and they are not defined
    /// (yet). Empty when it is back, or was given up.
    public var historyWaitsFor: [String] {
        guard let steps = pendingSteps else { return [] }
        return Set(steps.flatMap { $0.step?.changes.map(\.store) ?? [] }).filter { dispatcher.store(named: $0) == nil }.sorted()
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
        var undo: [(entry: HistoryEntry, key: Int?, record: StepRecord?)] = [], redo: [(entry: HistoryEntry, key: Int?, record: StepRecord?)] = []
        var dropped = 0, reason: String?, note: String?, offered = 0
        // Both stacks are saved farthest from now first.
        for pending in steps {
            do {
                guard let step = pending.step else { throw SessionError(pending.problem ?? "damaged") }
                let entry = (try step.entry(in: dispatcher) { store, text in
                    text.hasPrefix(SessionChunks.prefix) ? DeferredSavedState(store: store, stored: text, key: pending.rowKey, session: self) : nil
                }, pending.key, step.record)
                if pending.stack == "redo" { redo.append(entry) } else { undo.append(entry) }
            } catch {
                if pending.stack == "redo" { dropped += redo.count + 1; redo = [] } else { dropped += undo.count + 1; undo = [] }
                reason = reason ?? Self.describe(error)
            }
        }
        if stepCame {
            // The saved steps go below the new ones; the saved redo steps are past a new step.
            let now = history.steps
            dropped += redo.count
            offered = undo.count + now.undo.count
            note = history.replaceSteps(undo: undo.map(\.entry) + now.undo, redo: now.redo)
            reason = reason ?? "a new step came first"
            stepKeysRestored(undo: undo.map(\.key) + now.undo.map { _ in nil }, redo: now.redo.map { _ in nil })
        } else {
            offered = undo.count
            note = history.replaceSteps(undo: undo.map(\.entry), redo: redo.map(\.entry))
            restoredHistoryVersion = history.version
            stepKeysRestored(undo: undo.map(\.key), redo: redo.map(\.key))
            markHistorySaved()
            let now = history.steps
            didRestoreSteps?(undo.suffix(now.undo.count).map(\.record) + redo.reversed().map(\.record))
        }
        // The history's own limits (steps, memory) may keep fewer than were saved: said, never silent.
        let keptUndo = history.undoLabels.count
        if note == nil, keptUndo < offered {
            note = "kept the newest \(keptUndo) of its \(offered) undo steps (the undo history keeps at most \(history.limit))"
        }
        if let note { report("session '\(name)': the saved undo history: \(note)") }
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

/// A store's state as saved, its columns checked.
struct SavedState {
    let store: String
    let format: String
    let state: String
    /// The row as read, kept in `staleState` when the state no longer decodes.
    let row: Row
}

/// An undo or redo step read from a session, until every store it changes is there.
struct PendingStep {
    /// `undo` or `redo`.
    let stack: String
    /// Its row's `position`.
    let key: Int?
    /// What is wrong with its row.
    let problem: String?
    /// Its row's key, as a message names it.
    let rowKey: String
    /// The step, nil when its row is damaged.
    let step: SavedStep?
}
