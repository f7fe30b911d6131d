import Flux
import FluxSession

/// What opening a session gave back, for the banner: `session 'default' restored: 2 stores changed,
/// 14 journal entries; :session for more, --fresh to start empty`.
public struct SessionRestoreSummary: Equatable, Sendable {
    /// The session's name.
    public var name: String
    /// The stores whose state the restore changed, in registration order.
    public var changedStores: [String]
    /// The journal's length when the session opened.
    public var journalEntries: Int

    /// The banner's line.
    public var line: String {
        guard !changedStores.isEmpty || journalEntries > 0 else {
            return "session '\(name)' is new: it is kept for the next start (--no-session keeps nothing)"
        }
        let stores = changedStores.count == 1 ? "1 store changed" : "\(changedStores.count) stores changed"
        let entries = journalEntries == 1 ? "1 journal entry" : "\(journalEntries) journal entries"
        return "session '\(name)' restored: \(stores), \(entries); :session for more, --fresh to start empty"
    }
}

extension Shell {
    /// Each store's state as the session would save it, to tell which stores a restore changed.
    func savedForms() -> [String: String] {
        var forms: [String: String] = [:]
        for store in dispatcher.stores {
            guard let persistent = store as? any PersistentState,
                  let text = try? persistent.encodeState(persistent.snapshot()) else { continue }
            forms[store.name] = text
        }
        return forms
    }

    /// The summary of a restore that started from `before` (``savedForms()``).
    func restoreSummary(of session: Session, before: [String: String]) -> SessionRestoreSummary {
        let after = savedForms()
        let changed = dispatcher.stores.map(\.name).filter { name in after[name] != nil && after[name] != before[name] }
        return SessionRestoreSummary(name: session.name, changedStores: changed, journalEntries: session.journalLength)
    }
}
