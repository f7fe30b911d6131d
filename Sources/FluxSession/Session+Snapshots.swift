import Flux
import GRDB

/// Snapshots: every store's state right after a journal entry, the points from which ``Session/goTo(entry:)``
/// replays the journal.
extension Session {
    /// Every store's state now, encoded; a state encoded for this save already is not encoded again.
    /// A store whose state does not encode is left out (the save reports it).
    func snapshotStates(reusing encoded: [(name: String, format: String, state: String)]) -> [EncodedState] {
        let done = Dictionary(encoded.map { ($0.name, EncodedState(store: $0.name, format: $0.format, state: $0.state)) },
                              uniquingKeysWith: { first, _ in first })
        return dispatcher.stores.compactMap { store in
            if let state = done[store.name] { return state }
            guard let persistent = store as? any PersistentState,
                  let text = try? persistent.encodeState(persistent.snapshot()) else { return nil }
            return EncodedState(store: store.name, format: persistent.stateFormat, state: text)
        }
    }

    func insertSnapshot(_ states: [EncodedState], at seq: Int, into db: GRDB.Database) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO snapshot (seq, store, format, state) VALUES (?, ?, ?, ?)")
        for state in states {
            try insert.execute(arguments: [seq, state.store, state.format,
                                           try chunks.store(state.state, of: state.store, current: false, in: db)])
        }
    }

    /// The entry the oldest snapshot was taken after, nil when there is none.
    func oldestSnapshot() throws -> Int? {
        try read { db in try Int.fetchOne(db, sql: "SELECT MIN(seq) FROM snapshot WHERE typeof(seq) = 'integer'") }
    }
}
