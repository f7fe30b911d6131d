import Foundation
import GRDB

/// A store's state as it was saved before the store changed shape (converted, or no longer decoding),
/// kept aside in the session until dropped.
public struct StaleState: Equatable, Sendable {
    /// The store's name.
    public let store: String
    /// The format it was saved in.
    public let format: String
    /// The state's text.
    public let state: String
    /// Why it was kept aside: the conversion's note, or why it did not decode.
    public let reason: String
    /// When it was kept aside (seconds since 1970).
    public let keptAt: Double
}

extension Session {
    /// The states kept aside, of one store or every one, newest first.
    public func staleStates(of store: String? = nil) throws -> [StaleState] {
        let rows = try read { db in
            try Row.fetchAll(db, sql: "SELECT store, format, state, reason, keptAt FROM staleState "
                + (store == nil ? "" : "WHERE store = ? ") + "ORDER BY keptAt DESC, rowid DESC",
                arguments: store.map { [$0] } ?? [])
        }
        return rows.map { StaleState(store: $0["store"], format: $0["format"], state: $0["state"], reason: $0["reason"], keptAt: $0["keptAt"]) }
    }

    /// Drops the states kept aside for `store`; how many went.
    @discardableResult
    public func dropStaleStates(of store: String) throws -> Int {
        do {
            return try database.write { db in
                try db.execute(sql: "DELETE FROM staleState WHERE store = ?", arguments: [store])
                return db.changesCount
            }
        } catch {
            throw SessionError("session '\(name)': cannot write \(path): \(Self.describe(error))")
        }
    }
}
