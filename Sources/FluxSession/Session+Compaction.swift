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
        let dropped = first - firstNumber
        do {
            try dropEntries(before: first)
        } catch {
            throw SessionError("session '\(name)': not compacted: \(Self.describe(error))")
        }
        do {
            try database.write { db in try chunks.collect(in: db) }
            try giveSpaceBack()
        } catch {
            report("session '\(name)': compacted, but the space was not given back: \(Self.describe(error))")
        }
        return Compaction(dropped: dropped, firstEntry: first, journalLength: nextNumber - 1,
                          bytesBefore: before, bytesAfter: bytes)
    }

    /// Trims the journal back to its last ``journalLimit`` entries once it holds a tenth more, so that
    /// the file stops growing at about the limit's size: the next entries reuse the pages freed, and
    /// the space goes back to the disk only when more than a third of the file is free (after one line of
    /// many actions). Cheap enough to run after every line: a count compared, and now and then one
    /// transaction dropping a tenth of the limit, which a process killed during it rolls back. The
    /// owner calls it when a line is done; the session itself after each save it makes within a long
    /// line (only rows already saved are dropped, and no store is touched).
    ///
    /// - Returns: how many entries were dropped (0 when the journal is within bounds or the database
    ///   refused it; the refusal is reported once).
    @discardableResult
    public func trimJournal() -> Int {
        let length = nextNumber - 1
        collectChunksWhenDue()
        guard length - firstNumber + 1 > journalLimit + journalLimit / 10, journal.runs.isEmpty else { return 0 }
        let first = nextNumber - journalLimit
        let dropped = first - firstNumber
        do {
            try dropEntries(before: first)
        } catch {
            reportOnce("the journal was not trimmed to its last \(journalLimit) entries: \(Self.describe(error))")
            return 0
        }
        // One line of many actions left most of the file free; steady trims leave about a tenth.
        do {
            let (pages, free) = try database.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0)
            }
            if free * 3 > pages { try giveSpaceBack() }
        } catch {
            reportOnce("the journal was trimmed, but the space was not given back: \(Self.describe(error))")
        }
        return dropped
    }

    /// Deletes the pieces of large texts no row refers to any more, once a thousand were written since
    /// the last time (each line changing a large state writes a few): the mark and sweep reads every
    /// row that may refer to one, so it runs now and then, between lines.
    func collectChunksWhenDue() {
        guard chunks.writtenSinceCollect >= 1_000 else { return }
        do {
            try database.write { db in try chunks.collect(in: db) }
        } catch {
            reportOnce("pieces of old states were not deleted: \(Self.describe(error))")
        }
    }

    /// Drops the journal's entries before `first`, in one transaction: the newest snapshot before the
    /// cut stays, with the rows from it to the cut, so that ``goTo(entry:decode:)`` reaches every entry
    /// kept. A process killed during it leaves the journal whole (SQLite rolls an unfinished
    /// transaction back when the database is next opened).
    private func dropEntries(before first: Int) throws {
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
        firstNumber = first
    }

    /// Rewrites the file without its free pages, in a transaction of its own: a process killed during
    /// it leaves the database as it was.
    private func giveSpaceBack() throws {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
