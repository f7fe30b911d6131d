import Flux
import FluxSession
import Foundation

/// `:session stale`, `:session restore-store NAME` and `:session drop-stale NAME`: the states a session
/// kept aside when a store changed shape, recoverable until dropped.
extension Shell {
    /// `:session stale`: each state kept aside, newest first.
    func listStaleStates() throws {
        let states = try requireSession().staleStates()
        guard !states.isEmpty else { return print("no state is kept aside") }
        let now = Date()
        print(states.map { "\($0.store)  \(Self.journalTime($0.keptAt, now: now))  \($0.format)\n  \($0.reason)" }
            .joined(separator: "\n"))
    }

    /// `:session restore-store NAME`: the newest state kept aside for the store, converted by the
    /// store's definition now (a `migrate` added since runs), as one undo step.
    func restoreStaleState(of name: String) throws {
        let session = try requireSession()
        let store = try host.store(named: name)
        guard let stale = try session.staleStates(of: name).first else {
            throw ShellCommandError.failed("no state of store '\(name)' is kept aside (:session stale lists them)")
        }
        guard let persistent = store as? any PersistentState, persistent.reads(format: stale.format) else {
            throw ShellCommandError.failed("store '\(name)' cannot read its state kept aside (saved as \(stale.format))")
        }
        let (state, converted) = try persistent.decodeState(stale.state, savedAs: stale.format)
        try dispatcher.setStates([(target: store, state: state)], label: "restore-store \(name)")
        print("store '\(name)': its state saved as \(stale.format) is back" + (converted.map { " (it \($0))" } ?? "")
            + "; :undo goes back, :session drop-stale \(name) forgets it")
    }

    /// `:session drop-stale NAME`.
    func dropStaleStates(of name: String) throws {
        let dropped = try requireSession().dropStaleStates(of: name)
        print(dropped == 0 ? "no state of store '\(name)' is kept aside"
              : "dropped \(dropped) state\(dropped == 1 ? "" : "s") of store '\(name)' kept aside")
    }
}
