import Flux
import GRDB

/// A large state of a restored undo step, left as its row holds it (`@chunks:…`, see ``SessionChunks``)
/// until an undo or redo reaches it: a restart reads each step's list of pieces, not megabytes of text
/// per step, and decodes none of them. Built once, when ``resolve()`` is first called.
final class DeferredSavedState: DeferredState {
    /// The store the state is of.
    let store: any PersistentState
    /// The text as the row holds it: its pieces' list.
    let stored: String
    /// The row, for the message when a piece is damaged.
    let key: String
    private weak var session: Session?
    private var built: Any?

    init(store: any PersistentState, stored: String, key: String, session: Session) {
        self.store = store
        self.stored = stored
        self.key = key
        self.session = session
    }

    func resolve() throws -> Any {
        if let built { return built }
        guard let session else { throw SessionError("the session is closed") }
        let text = try session.read { db in try session.chunks.text(stored, table: "history", key: key, remember: store.name, in: db) }
        let state = try store.decodeState(text)
        built = state
        return state
    }
}
