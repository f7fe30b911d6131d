import Flux
import GRDB

/// A session's outbox entries, in its database's `outbox` table: a new entry is written by
/// ``Session/save()`` in the same transaction as its action's journal row — a committed action is
/// queued exactly when it is journalled, a rolled-back one never — so entries survive a quit, a crash
/// or `kill -9` and are sent after the restart. An entry's id is its row's, never reused
/// (`AUTOINCREMENT`): the idempotency key a receiver dedupes by.
///
/// A rejected entry leaves the table with the next save, the one that journals its compensating
/// action; an undone one with the save that journals the undo. A sent one leaves at once.
///
/// Each row names the undo step that holds its action (`step`: the step's row in `history`), so that
/// after a restart, undoing that step of the restored history takes the entry back as it would have
/// before: see ``restoredStep(of:)``.
public final class SessionOutbox: OutboxStorage {
    private weak var session: Session?
    /// Entries waiting for the next save, with what to tell once it committed.
    private var unsaved: [(entry: OutboxEntry, durable: ([OutboxEntry]) -> Void)] = []
    /// Entries to delete with the next save.
    private var doomed: Set<Int> = []
    /// What the save being written holds, until it commits.
    private var written: (entries: [(entry: OutboxEntry, durable: ([OutboxEntry]) -> Void)], count: Int, gone: Set<Int>)?
    /// The saved step (its `history` row) of each entry read back, by entry id.
    private var links: [Int: Int] = [:]
    /// Whether the links of entries whose step the restored history lacks were cleared in the table: a
    /// later step may be saved in the same row, and must not take them over.
    private var staleLinksCleared = false, clearingStaleLinks = false
    /// Whether the table has the `step` column (a table made before it had none).
    private var hasStepColumn = false

    init(session: Session) {
        self.session = session
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,  -- the entry's idempotency key
            outbox TEXT NOT NULL,                  -- the outbox's name
            action TEXT NOT NULL,
            payload TEXT NOT NULL,                 -- JSON
            attempts INTEGER NOT NULL DEFAULT 0,
            lastError TEXT,
            step INTEGER                           -- the history row of the undo step holding its action
        )
        """

    /// Makes the table, and adds the `step` column to a table made without it.
    private func prepareTable(_ db: GRDB.Database) throws {
        guard !hasStepColumn else { return }
        try db.execute(sql: Self.schema)
        if try !db.columns(in: "outbox").contains(where: { $0.name == "step" }) {
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN step INTEGER")
        }
        hasStepColumn = true
    }

    /// Every entry kept, oldest first. Columns are read by position (100,000 entries load in a fraction
    /// of a second); a row whose column holds the wrong type is left out and said, naming its id.
    public func storedEntries() throws -> [OutboxEntry] {
        guard let session else { return [] }
        var damaged: [String] = []
        var links: [Int: Int] = [:]
        let entries = try session.read { db -> [OutboxEntry] in
            guard try db.tableExists("outbox") else { return [] }
            var entries: [OutboxEntry] = []
            let step = try db.columns(in: "outbox").contains { $0.name == "step" } ? "step" : "NULL"
            let rows = try Row.fetchCursor(db, sql: "SELECT id, outbox, action, payload, attempts, lastError, \(step) FROM outbox ORDER BY id")
            while let row = try rows.next() {
                let values = (0 ..< 7).map { row[$0] as DatabaseValue }
                guard let id = Int.fromDatabaseValue(values[0]), let outbox = String.fromDatabaseValue(values[1]),
                      let action = String.fromDatabaseValue(values[2]), let payload = String.fromDatabaseValue(values[3]),
                      let attempts = Int.fromDatabaseValue(values[4]), attempts >= 0,
                      values[5].isNull || String.fromDatabaseValue(values[5]) != nil else {
                    damaged.append("table 'outbox', row id = \(values[0]): a column holds a value of the wrong type; that entry is left out")
                    continue
                }
                entries.append(OutboxEntry(id: id, outbox: outbox, action: action, payload: payload, attempts: attempts,
                                           lastError: String.fromDatabaseValue(values[5])))
                // A link that is not a number is no link: the entry is never taken back by an undo.
                if let position = Int.fromDatabaseValue(values[6]) { links[id] = position }
            }
            return entries
        }
        self.links = links
        for problem in damaged { session.report("session '\(session.name)': \(problem)") }
        return entries
    }

    public func enqueue(_ entries: [OutboxEntry], durable: @escaping ([OutboxEntry]) -> Void) {
        for entry in entries { unsaved.append((entry, durable)) }
    }

    public func withdraw(where body: (OutboxEntry) -> Bool) -> Int {
        let before = unsaved.count
        unsaved.removeAll { body($0.entry) }
        return before - unsaved.count
    }

    public func remove(_ id: Int) {
        doomed.remove(id)
        write { db in try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id]) }
    }

    public func removeWithNextSave(_ id: Int) {
        doomed.insert(id)
    }

    /// The restored history's number of the step that holds entry `id`'s action, for an entry read back
    /// whose step came back with the history.
    public func restoredStep(of id: Int) -> Int? {
        guard let position = links[id] else { return nil }
        return session?.restoredSteps[position]
    }

    public func update(_ entry: OutboxEntry) {
        write { db in
            try db.execute(sql: "UPDATE outbox SET attempts = ?, lastError = ? WHERE id = ?",
                           arguments: [entry.attempts, entry.lastError, entry.id])
        }
    }

    private func write(_ body: (GRDB.Database) throws -> Void) {
        guard let session else { return }
        do {
            try session.database.write(body)
        } catch {
            session.reportOnce("the outbox cannot be written: \(Session.describe(error))")
        }
    }

    /// Writes the entries queued and deletes those gone since the last save, inside the save's
    /// transaction; once it commits, the new entries (their ids given) may be sent.
    func write(into db: GRDB.Database) throws {
        guard !unsaved.isEmpty || !doomed.isEmpty else { return }
        try prepareTable(db) // made with the first entry: a session without an outbox has no table
        let insert = try db.cachedStatement(sql: "INSERT INTO outbox (outbox, action, payload) VALUES (?, ?, ?)")
        var batch: [(entry: OutboxEntry, durable: ([OutboxEntry]) -> Void)] = []
        for (entry, durable) in unsaved {
            try insert.execute(arguments: [entry.outbox, entry.action, entry.payload])
            var kept = entry
            kept.id = Int(db.lastInsertedRowID)
            batch.append((kept, durable))
        }
        let gone = doomed
        if !gone.isEmpty {
            let delete = try db.cachedStatement(sql: "DELETE FROM outbox WHERE id = ?")
            for id in gone { try delete.execute(arguments: [id]) }
        }
        written = (batch, unsaved.count, gone)
    }

    /// Links the entries written by this save to the rows of their undo steps (`position` gives a step's
    /// row by its history number, once the save wrote the steps), in the save's transaction. Once the
    /// saved history is back, the links of entries read back whose step it lacks are cleared.
    func linkSteps(in db: GRDB.Database, position: (Int) -> Int?) throws {
        if !staleLinksCleared, let session, session.pendingSteps == nil {
            let stale = links.filter { session.restoredSteps[$0.value] == nil }
            if !stale.isEmpty, try db.tableExists("outbox") {
                let clear = try db.cachedStatement(sql: "UPDATE outbox SET step = NULL WHERE id = ?")
                for id in stale.keys { try clear.execute(arguments: [id]) }
            }
            clearingStaleLinks = true
        }
        guard let written, written.entries.contains(where: { $0.entry.step != nil }) else { return }
        let link = try db.cachedStatement(sql: "UPDATE outbox SET step = ? WHERE id = ?")
        for (entry, _) in written.entries {
            guard let number = entry.step, let position = position(number) else { continue }
            try link.execute(arguments: [position, entry.id])
        }
    }

    /// The save's transaction committed: the entries it wrote may be sent. (After a save that failed,
    /// the next one writes them again, and replaces what `written` holds.)
    func didCommit() {
        if clearingStaleLinks {
            clearingStaleLinks = false
            staleLinksCleared = true
        }
        guard let (entries, count, gone) = written else { return }
        written = nil
        unsaved.removeFirst(min(count, unsaved.count))
        doomed.subtract(gone)
        for item in entries { item.durable([item.entry]) }
    }
}

extension Session {
    /// The storage of this session's outbox entries, the `outbox` table (made with the first entry):
    /// give it to `OutboxCenter.use(_:)` after ``attach()``.
    public func outboxStorage() -> SessionOutbox {
        if let outbox { return outbox }
        let made = SessionOutbox(session: self)
        outbox = made
        return made
    }
}
