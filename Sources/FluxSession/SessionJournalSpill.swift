import Flux
import GRDB

/// Where a session's journal puts the runs a long replay (or group) committed while it still runs: rows
/// of the side table `journalSpill`, written as it goes, so that a replay of a million lines keeps a
/// few thousand runs in memory, not a million.
///
/// All or nothing still. The rows join the journal only in the save after the replay was kept, in that
/// save's transaction (see ``move(into:from:)``), before the runs still in memory (they came first); a
/// replay rolled back deletes them — a rollback of part of them (a group inside the replay) takes its
/// entries off the last rows, in the transaction that next writes the table; rows a crash left behind
/// are never read: the next spill begins by deleting them.
final class SessionJournalSpill {
    /// How many runs the journal keeps in memory, while a replay runs, before it spills all but the last.
    static let threshold = 4096

    private let database: DatabaseQueue
    /// Writes the spilled runs as rows of `journalSpill`, numbered in the order they were committed.
    private var rowWriter: SessionJournalRows
    /// Rows written since the journal was last saved (or the spill discarded).
    private(set) var rows = 0
    /// Why the last spill failed: the runs then stay in memory, as without a spill.
    private(set) var failure: String?
    /// Entries rolled back off the end of the rows written, not taken off yet (see ``withdraw(_:)``).
    private var withdrawing = 0

    /// `owners` gives the stores that handle an action by its name (the journal's `stores` column).
    init(database: DatabaseQueue, owners: @escaping (String) -> String) {
        self.database = database
        rowWriter = SessionJournalRows(table: "journalSpill", key: "n", keyedByEntries: false, owners: owners)
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS journalSpill (
            n INTEGER PRIMARY KEY,  -- the order the runs were committed in
            count INTEGER NOT NULL,
            line TEXT NOT NULL,
            stores TEXT NOT NULL,
            lastTime REAL NOT NULL
        )
        """

    /// Writes `runs` after those written before, in a transaction of its own; false (and nothing
    /// written) when the database refused.
    func write(_ runs: ArraySlice<SessionJournal.Run>) -> Bool {
        do {
            let written = try database.write { db -> Int in
                try db.execute(sql: Self.schema)
                if rows == 0 { try db.execute(sql: "DELETE FROM journalSpill") } // what a crash left
                let kept = try takeWithdrawn(in: db)
                _ = try rowWriter.write(runs, from: kept, into: db)
                return kept + runs.count
            }
            rows = written
            withdrawing = 0
            return true
        } catch {
            failure = "\(error)"
            return false
        }
    }

    /// Moves the rows written into the journal, numbered from `number` on, inside a save's transaction;
    /// returns the number after the last entry moved.
    func move(into db: GRDB.Database, from number: Int) throws -> Int {
        guard rows > 0 else { return number }
        _ = try takeWithdrawn(in: db)
        var seq = number
        let insert = try db.cachedStatement(sql: "INSERT INTO journal (seq, count, line, stores, lastTime) VALUES (?, ?, ?, ?, ?)")
        let spilled = try Row.fetchCursor(db, sql: "SELECT count, line, stores, lastTime FROM journalSpill ORDER BY n")
        while let row = try spilled.next() {
            let count: Int = row[0]
            try insert.execute(arguments: [seq, count, row[1] as String, row[2] as String, row[3] as Double])
            seq += count
        }
        try db.execute(sql: "DELETE FROM journalSpill")
        return seq
    }

    /// The last `entries` entries written were rolled back (and not all of them: see ``discard()``):
    /// they are taken off the last rows in the transaction that next writes the table (a spill, or the
    /// save that moves the rows), so that a rollback costs no write of its own and one the database
    /// refuses is not lost.
    func withdraw(_ entries: Int) {
        withdrawing += entries
    }

    /// Takes the entries withdrawn off the end of the rows written, inside `db`'s transaction; returns
    /// how many rows are left. Nothing here changes before that transaction commits.
    private func takeWithdrawn(in db: GRDB.Database) throws -> Int {
        var (left, kept) = (withdrawing, rows)
        while left > 0, kept > 0 {
            guard let count = try Int.fetchOne(db, sql: "SELECT count FROM journalSpill WHERE n = ?", arguments: [kept - 1]) else { break }
            if count > left {
                try db.execute(sql: "UPDATE journalSpill SET count = ? WHERE n = ?", arguments: [count - left, kept - 1])
                break
            }
            try db.execute(sql: "DELETE FROM journalSpill WHERE n = ?", arguments: [kept - 1])
            left -= count
            kept -= 1
        }
        return kept
    }

    /// The rows were moved by a save that committed: the next spill starts afresh.
    func reset() {
        rows = 0
        withdrawing = 0
        failure = nil
    }

    /// Every entry written was rolled back (the replay that wrote them): they go (or, if the database
    /// refuses now, with the next spill).
    func discard() {
        guard rows > 0 else { return }
        reset()
        _ = try? database.write { db in try db.execute(sql: "DELETE FROM journalSpill") }
    }
}

extension Session {
    /// The spill of this session's journal: runs written as the save writes them.
    func journalSpill() -> SessionJournalSpill {
        SessionJournalSpill(database: database) { [weak self] name in self?.owners(ofAction: name) ?? "" }
    }
}
