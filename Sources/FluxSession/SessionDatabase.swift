import GRDB

/// Opens a session's SQLite database and brings its schema up to date.
///
/// - `journal`: every committed action and undo or redo step, as action-log lines; a run of identical
///   actions in a row (same payload and group) is one row with a `count`, so a loop of a
///   million increments costs one row, not a million.
/// - `state`: each store's state at the last commit, in its store's encoding.
/// - `staleState`: saved states that no longer decoded when the session was opened, kept as they were.
/// - `history`: the undo and redo steps, each with the states of the stores it restores.
/// - `journalStart`: the number of the journal's first entry kept, once older entries were compacted
///   away (numbers stay as they were, so the journal never renumbers).
/// - `chunk`: pieces of large texts, shared by the rows above that hold them (see ``SessionChunks``):
///   such a row holds `@chunks:12,13,14`.
/// - `code`: which version of each store's handlers made the entries after `seq` (see
///   ``Session/noteCodeVersions()``).
/// - `snapshot`: every store's state right after entry `seq`, taken every ``Session/snapshotInterval``
///   entries or more, so that `:goto N` replays at most that far from the nearest one at or before N.
///
/// Write-ahead logging with `synchronous = NORMAL`: a commit is in the log file when it returns, so a
/// killed process loses nothing committed; only a power failure could lose the last commits.
enum SessionDatabase {
    /// Opens the database at `path`; returns it with its session id (see ``SessionWAL``), given to a
    /// database that has none and made durable in the file itself at once.
    static func open(path: String) throws -> (database: DatabaseQueue, id: Int32) {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // A newer fluxsh may have changed what the tables mean: writing them as this one knows them
        // could spoil the session for it.
        let migrator = migrator
        let unknown = try queue.read { db in try migrator.appliedIdentifiers(db).subtracting(migrator.migrations) }
        guard unknown.isEmpty else { throw NewerSchema(versions: unknown.sorted()) }
        try migrator.migrate(queue)
        var id = try queue.read { db in try Int32.fetchOne(db, sql: "PRAGMA user_version") } ?? 0
        if id == 0 {
            id = Int32.random(in: 1 ... Int32.max)
            try queue.write { db in try setID(id, in: db) }
            // In the file's own header at once, where a log is checked against it before it is applied.
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        return (queue, id)
    }

    /// Writes the session id in the database's header: every save does, so that every write-ahead log a
    /// session writes carries its id (see ``SessionWAL``).
    static func setID(_ id: Int32, in db: GRDB.Database) throws {
        try db.execute(sql: "PRAGMA user_version = \(id)")
    }

    /// The database was brought up to a schema this fluxsh does not know (`versions`).
    struct NewerSchema: Error {
        let versions: [String]
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE journal (
                    seq INTEGER PRIMARY KEY,   -- the number of the run's first action, from 1
                    count INTEGER NOT NULL,    -- how many identical actions in a row the row stands for
                    line TEXT NOT NULL,        -- the first one as an action-log line
                    stores TEXT NOT NULL,      -- the stores that handle it, comma-separated
                    lastTime REAL NOT NULL     -- when the run's last action ran
                );
                CREATE TABLE state (
                    store TEXT PRIMARY KEY,
                    format TEXT NOT NULL,
                    state TEXT NOT NULL,
                    seq INTEGER NOT NULL       -- the journal's length when it was saved
                );
                CREATE TABLE staleState (
                    store TEXT NOT NULL,
                    format TEXT NOT NULL,
                    state TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    keptAt REAL NOT NULL
                );
                CREATE TABLE history (
                    position INTEGER PRIMARY KEY,  -- undo steps oldest first, then redo steps
                    stack TEXT NOT NULL,           -- 'undo' or 'redo'
                    changes TEXT NOT NULL          -- JSON: {"label", "changes": [{"store", "format", "state"}]}
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE journalStart (
                    id INTEGER PRIMARY KEY CHECK (id = 1),  -- one row at most
                    seq INTEGER NOT NULL,                   -- the first entry kept
                    compactedAt REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE snapshot (
                    seq INTEGER NOT NULL,      -- the journal's length when it was taken: the state right after entry seq
                    store TEXT NOT NULL,
                    format TEXT NOT NULL,
                    state TEXT NOT NULL,
                    PRIMARY KEY (seq, store)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4") { db in
            try db.execute(sql: """
                CREATE TABLE chunk (
                    id INTEGER PRIMARY KEY,
                    data BLOB NOT NULL         -- a piece of a large text (see SessionChunks)
                );
                CREATE TABLE code (
                    seq INTEGER NOT NULL,      -- the journal's length when the store's code became this version
                    store TEXT NOT NULL,
                    version TEXT NOT NULL,     -- a hash of its handlers' code (see Session.codeVersion)
                    origin TEXT NOT NULL,      -- who defined it: plugin p1 (plugins/p1/init.lua)
                    PRIMARY KEY (seq, store)
                ) WITHOUT ROWID;
                """)
        }
        return migrator
    }
}
