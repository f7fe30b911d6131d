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
            if let aside = session.movedAside { reportMessage("session '\(choice.name)': started afresh; the old one is \(aside)") }
            let before = savedForms()
            session.restore()
            restored = restoreSummary(of: session, before: before)
            session.attach()
            self.session = session
        } catch {
            reportMessage("\(error); nothing of this shell will be kept")
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
        guard let session, session.save() else { return }
        session.trimJournal()
    }
}
