import Flux
import FluxLua
import FluxSession
import Foundation

extension Shell {
    /// Opens the chosen session and gives every store (features and plugins loaded) its saved state
    /// and the undo history back. A session that cannot be opened is reported; the shell goes on
    /// without one.
    func openSession(_ choice: SessionChoice) {
        do {
            let report = writeError
            let session = try Session.open(name: choice.name, fresh: choice.fresh, dispatcher: dispatcher,
                                           report: { report($0 + "\n") })
            if let limit = ProcessInfo.processInfo.environment["FLUXSH_JOURNAL_LIMIT"].flatMap(Int.init), limit > 0 {
                session.journalLimit = limit
            }
            if let aside = session.movedAside { reportMessage("session '\(choice.name)': started afresh; the old one is \(aside)") }
            keepStepPayloads(in: session)
            let host = host
            session.codeVersion = { store in host.codeVersion(ofStore: store.name) }
            let before = savedForms()
            session.restore()
            restored = restoreSummary(of: session, before: before)
            session.attach()
            self.session = session
            keepOutboxes(in: session)
        } catch {
            reportMessage("\(error); nothing of this shell will be kept")
        }
    }

    /// Saves what `:history` shows of each undo step (its actions' payloads, its stores) with the step,
    /// and puts it back with a restored history.
    private func keepStepPayloads(in session: Session) {
        let monitor = monitor, dispatcher = dispatcher
        session.stepRecords = {
            monitor.steps(of: dispatcher.history)?.map { step in
                StepRecord(actions: step.actions.compactMap { try? ActionLogEntry(action: $0, time: 0).jsonLine() },
                           count: step.count, stores: step.stores, isGroup: step.group != nil)
            }
        }
        let host = host
        session.didRestoreSteps = { records in
            // The host's decoder, as :replay's: a Lua payload's 0.0 stays a float (the registry's reads JSON
            // through JSONSerialization, which makes it 0). A store defined at the prompt brings the history
            // back while it is being defined, before the host resolves its actions: then the registry's.
            let exact = host.logDecoder, registry = ActionLogEntry.decoding(with: dispatcher.registry)
            let decode: ActionLogEntry.Decode = { name, payload in
                do { return try exact(name, payload) } catch { return try registry(name, payload) }
            }
            let (undo, redo) = dispatcher.history.steps
            let steps = zip(undo + redo.reversed(), records).map { entry, record -> ActionMonitor.Step in
                let labelOnly = ActionMonitor.Step(label: entry.label, actions: [], count: 0,
                                                   stores: entry.changes.map(\.target.name), group: nil)
                guard let record, record.count >= 0 else { return labelOnly }
                let actions = record.actions.compactMap { try? ActionLogEntry.parse($0, decode: decode).action }
                // A payload that no longer decodes leaves the step to its label.
                guard actions.count == min(record.count, ActionMonitor.keptActions), actions.count == record.actions.count else { return labelOnly }
                return ActionMonitor.Step(label: entry.label, actions: actions, count: record.count, stores: record.stores,
                                          group: record.isGroup ? -1 : nil)
            }
            monitor.restoreSteps(steps, undoCount: undo.count)
        }
    }

    /// Why there is no undo history yet when the session's saved one waits for stores not defined
    /// again (a plugin not loaded, a script not run yet), else "".
    var historyWaitNote: String {
        guard let waiting = session?.historyWaitsFor, !waiting.isEmpty else { return "" }
        let names = waiting.map { "'\($0)'" }.joined(separator: ", ")
        return " (the saved undo history comes back once \(waiting.count == 1 ? "store" : "stores") \(names) "
            + "\(waiting.count == 1 ? "is" : "are") defined again)"
    }

    /// An input or a script finished: what it did becomes durable, the errors it repeated are summed
    /// up, and a journal grown past its limit is trimmed (between lines, never while actions run).
    func acknowledge() {
        host.flushErrors()
        guard let session else { return }
        session.noteCodeVersions()
        guard session.save() else { return }
        session.trimJournal()
    }
}
