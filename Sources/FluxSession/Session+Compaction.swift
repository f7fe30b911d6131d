import Foundation
import GRDB

/// What a compaction of a session's journal did, as `:session compact` reports it.
public struct Compaction {
    /// How many entries were dropped.
    public let dropped: Int
    /// The number of the journal's first entry kept.
    public let firstEntry: Int
    /// The journal's length: its last entry's number.
    public let journalLength: Int
    /// The database's size on disk before and after, its write-ahead log included, in bytes.
    public let bytesBefore: Int
    public let bytesAfter: Int

    /// How many entries the journal holds now.
    public var kept: Int { journalLength - firstEntry + 1 }
}

extension Session {
    /// Drops the journal's entries older than its last `keep`, then gives the space back to the disk.
    /// Entries keep their numbers: the journal then starts at the first one kept. The stores' states
    /// and the undo history are saved apart from the journal and stay as they are. The newest snapshot
    /// before the cut stays, with the rows from it to the cut (fewer than ``snapshotInterval`` entries
    /// or one save's worth, not listed), so that ``goTo(entry:decode:)`` reaches every entry kept.
    ///
    /// The entries go in one transaction, after saving what is pending: a process killed during it
    /// leaves the journal whole (SQLite rolls an unfinished transaction back when the database is next
    /// opened). `VACUUM` then rewrites the file in a transaction of its own, so a kill there leaves the
    /// journal compacted and the space merely not yet given back.
    ///
    /// - Throws: ``SessionError`` when the database refuses it; the journal is then as it was.
    public func compact(keeping keep: Int) throws -> Compaction {
        guard save() else { throw SessionError("session '\(name)': what is pending cannot be saved, so nothing was compacted") }
        let before = bytes
        let first = max(firstNumber, nextNumber - max(0, keep))
        do {
            try database.write { db in
                // The newest snapshot before the cut stays, with the rows after it, so that :goto still
                // reaches the first entry kept; the older ones go.
                let base = try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM snapshot WHERE seq < ?", arguments: [first])
                let rowsFrom = base.map { min(first, $0 + 1) } ?? first
                if let base { try db.execute(sql: "DELETE FROM snapshot WHERE seq < ?", arguments: [base]) }
                try db.execute(sql: "DELETE FROM journal WHERE seq + count <= ?", arguments: [rowsFrom])
                // A run reaching past the cut keeps its actions from the cut on.
                try db.execute(sql: "UPDATE journal SET count = seq + count - ?1, seq = ?1 WHERE seq < ?1", arguments: [rowsFrom])
                try db.execute(sql: """
                    INSERT INTO journalStart (id, seq, compactedAt) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, compactedAt = excluded.compactedAt
                    """, arguments: [first, clock()])
            }
        } catch {
            throw SessionError("session '\(name)': not compacted: \(Self.describe(error))")
        }
        let dropped = first - firstNumber
        firstNumber = first
        do {
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        } catch {
            report("session '\(name)': compacted, but the space was not given back: \(Self.describe(error))")
        }
        return Compaction(dropped: dropped, firstEntry: first, journalLength: nextNumber - 1,
                          bytesBefore: before, bytesAfter: bytes)
    }
}
