import Flux
import Foundation
import GRDB

/// A named session: the state of every store, the journal of every committed action and the undo
/// history, kept in one SQLite database so that they survive a quit, a crash or `kill -9`.
///
/// ```swift
/// let session = try Session.open(name: "default", dispatcher: dispatcher)
/// session.restore()          // after every store is registered
/// session.attach()           // journal from now on
/// try dispatcher.dispatch(…)
/// session.save()             // the line is done: what it did is durable
/// ```
///
/// What the dispatcher commits is collected in memory and written by ``save()``, in one transaction:
/// the new journal rows, the states of the stores that changed, and the undo history if it moved.
/// The owner calls ``save()`` when a unit the user sees acknowledged ends (a line, a script); within a
/// long unit the session saves by itself at the first action ``saveInterval`` after the last save.
/// Used from the dispatcher's thread.
public final class Session {
    /// The session's name.
    public let name: String
    /// The database file.
    public let path: String
    /// The dispatcher whose stores, actions and history are kept.
    public let dispatcher: Dispatcher
    /// Where problems go that stop nothing: a save that failed, a saved state that no longer decodes.
    public var report: (String) -> Void
    /// Where `--fresh` moved the session's earlier database, if it had one.
    public internal(set) var movedAside: String?
    /// The longest time committed actions wait in memory while actions keep coming, in seconds.
    public var saveInterval = 0.1
    /// Every this many journal entries, every store's state is kept as a snapshot, saved with those
    /// entries: ``goTo(entry:decode:)`` replays at most this many. An undo, a redo or a goto takes one
    /// as well: a replay from an earlier snapshot could not take back a step made before it.
    public var snapshotInterval = 1_000 {
        didSet { journal.snapshotInterval = max(1, snapshotInterval) }
    }

    /// The most journal entries kept: once the journal holds a tenth more, ``trimJournal()`` drops the
    /// oldest (the numbers of the others stay). Each entry that is not a repeat of the one before costs
    /// about 100 bytes with its share of snapshots, so the file stays near 60 MB.
    public var journalLimit = 500_000

    let database: DatabaseQueue
    let journal: SessionJournal
    private let lock: SessionLock
    let clock: () -> Double
    /// The number the next journalled action gets (the journal's length plus one).
    var nextNumber: Int
    /// The number of the journal's first entry kept: 1 until older entries are compacted away.
    public internal(set) var firstNumber: Int
    /// The entry the newest snapshot was taken after, nil before the first.
    var lastSnapshot: Int?
    private var savedHistoryVersion: Int?
    /// Saved states of stores not registered yet, by store name.
    var pendingStates: [String: Row] = [:]
    /// The saved history, until every store it changes is registered.
    var pendingSteps: [(stack: String, step: SavedStep)]?
    /// The history's version when restoring began: a step recorded since means the saved one is stale.
    var restoredHistoryVersion = 0
    private var reported: Set<String> = []
    /// The undo steps as last saved, by their history number: a step is encoded once.
    private var savedSteps: [Int: String] = [:]

    init(name: String, path: String, lock: SessionLock, database: DatabaseQueue, dispatcher: Dispatcher,
         clock: @escaping () -> Double, report: @escaping (String) -> Void) throws {
        self.lock = lock
        self.name = name
        self.path = path
        self.database = database
        self.dispatcher = dispatcher
        self.clock = clock
        self.report = report
        journal = SessionJournal(clock: clock)
        (firstNumber, nextNumber, lastSnapshot) = try database.read { db in
            let first = try Int.fetchOne(db, sql: "SELECT seq FROM journalStart") ?? 1
            // The last row by its key: MAX(seq + count) would read the whole journal. A journal
            // compacted to nothing goes on from its first entry kept.
            return (first, try Int.fetchOne(db, sql: "SELECT seq + count FROM journal ORDER BY seq DESC LIMIT 1") ?? first,
                    try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM snapshot"))
        }
    }

    /// Opens the session `name` in `directory`, creating it if needed; with `fresh`, an existing
    /// database is moved aside (`NAME.2026-11-23T12-00-00.sqlite`) and the session starts empty.
    ///
    /// - Throws: ``SessionError`` for a name that is not a plain file name, or a database that
    ///   cannot be opened.
    public static func open(name: String, fresh: Bool = false, directory: URL = SessionPaths.directory(),
                            dispatcher: Dispatcher, report: @escaping (String) -> Void = { _ in },
                            clock: @escaping () -> Double = { Date().timeIntervalSince1970 }) throws -> Session {
        try SessionPaths.checkName(name)
        let path = directory.appendingPathComponent(name + ".sqlite").path
        _ = FileWriter.fileSizeLimitFails // a database past a file-size limit fails its writes; the process goes on
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let lock = try SessionLock(path: path, name: name)
            let aside = fresh ? try SessionPaths.moveAside(path, name: name, in: directory, time: clock()) : nil
            let database = try SessionDatabase.open(path: path)
            let session = try Session(name: name, path: path, lock: lock, database: database, dispatcher: dispatcher,
                                      clock: clock, report: report)
            session.movedAside = aside
            return session
        } catch let error as SessionError {
            throw error
        } catch let error as SessionDatabase.NewerSchema {
            throw SessionError("session '\(name)': \(path) was written by a newer fluxsh (schema "
                + "\(error.versions.joined(separator: ", ")) is unknown here) and is left as it is; \(freshHint)")
        } catch {
            throw SessionError("session '\(name)': cannot open \(path): \(Self.describe(error))")
        }
    }

    /// What a user can do about a database this fluxsh cannot use.
    private static let freshHint = "--fresh starts the session empty and keeps that file beside it"

    /// Starts journalling what the dispatcher commits (after ``restore()``).
    public func attach() {
        guard dispatcher.commitObserver !== journal else { return }
        markHistorySaved()
        journal.onDeadline = { [unowned self] in save() }
        journal.deadline = clock() + saveInterval
        journal.snapshotInterval = max(1, snapshotInterval)
        journal.takeSnapshot = { [weak self] in self?.snapshotStates(reusing: []) ?? [] }
        dispatcher.commitObserver = journal
        if lastSnapshot == nil {
            journal.snapshot()
            save()
        }
        journal.sinceSnapshot = nextNumber - 1 - (lastSnapshot ?? 0)
    }

    /// The history as it is now is the one saved (just restored, or nothing to save yet).
    func markHistorySaved() {
        savedHistoryVersion = dispatcher.history.version
    }

    /// Saves, then stops journalling. What cannot be saved then is lost, and said so, however often
    /// the save failed before.
    public func close() {
        if !save() {
            report("session '\(name)': what was done since the last save (\(journal.pendingCount) actions and steps) "
                + "could not be saved, and is lost")
        }
        if dispatcher.commitObserver === journal { dispatcher.commitObserver = nil }
    }

    /// Writes what was committed since the last save, in one transaction — with the snapshots taken
    /// meanwhile, so a snapshot is never without the journal rows before it.
    ///
    /// - Returns: false when the database refused it (the error is reported; what was not written
    ///   stays in memory and is tried again at the next save).
    @discardableResult
    public func save() -> Bool {
        defer { journal.deadline = clock() + saveInterval }
        let history = dispatcher.history
        if pendingSteps != nil { restoreHistory() } // a new step puts back what fits of a saved history still waiting
        guard !journal.runs.isEmpty || !journal.snapshots.isEmpty || history.version != savedHistoryVersion else { return true }
        // The stores that handle an action committed since the last save: the others did not change.
        let stores = journal.travelled ? dispatcher.stores : dispatcher.stores.filter { store in
            store.handlesEveryAction || journal.actionNames.contains { store.handles($0) }
        }
        var problems: [String] = []
        let states = stores.compactMap { store -> (name: String, format: String, state: String)? in
            guard let store = store as? any PersistentState else { return nil }
            do {
                return (store.name, store.stateFormat, try store.encodeState(store.snapshot()))
            } catch {
                problems.append("store '\(store.name)': its state cannot be saved: \(Self.describe(error))")
                return nil
            }
        }
        var steps: [(stack: String, json: String)]?
        if history.version != savedHistoryVersion {
            do {
                let (undo, redo) = history.steps
                var encoded: [Int: String] = [:]
                func saved(_ entry: HistoryEntry) throws -> String {
                    let json = try savedSteps[entry.number] ?? SavedStep(entry).json
                    encoded[entry.number] = json
                    return json
                }
                steps = try undo.map { ("undo", try saved($0)) } + redo.map { ("redo", try saved($0)) }
                savedSteps = encoded
            } catch {
                problems.append("the undo history cannot be saved: \(Self.describe(error))")
            }
        }
        for problem in problems { reportOnce(problem) }
        let taken = journal.snapshots.map { (seq: nextNumber - 1 + $0.entries, states: $0.states) }
        do {
            var number = nextNumber
            try database.write { db in
                number = nextNumber
                let insert = try db.cachedStatement(sql: "INSERT INTO journal (seq, count, line, stores, lastTime) VALUES (?, ?, ?, ?, ?)")
                for run in journal.runs {
                    try insert.execute(arguments: [number, run.count, run.entry.line, owners(of: run.entry), run.lastTime])
                    number += run.count
                }
                let upsert = try db.cachedStatement(sql: """
                    INSERT INTO state (store, format, state, seq) VALUES (?, ?, ?, ?)
                    ON CONFLICT (store) DO UPDATE SET format = excluded.format, state = excluded.state, seq = excluded.seq
                    """)
                for state in states { try upsert.execute(arguments: [state.name, state.format, state.state, number - 1]) }
                for (seq, states) in taken { try Self.insertSnapshot(states, at: seq, into: db) }
                if let steps {
                    try db.execute(sql: "DELETE FROM history")
                    let add = try db.cachedStatement(sql: "INSERT INTO history (position, stack, changes) VALUES (?, ?, ?)")
                    for (position, saved) in steps.enumerated() {
                        try add.execute(arguments: [position, saved.stack, saved.json])
                    }
                }
            }
            nextNumber = number
            if let last = taken.last { lastSnapshot = last.seq }
            if steps != nil { savedHistoryVersion = history.version }
            journal.clear()
            return true
        } catch {
            reportOnce("not saved: \(Self.describe(error)); every store goes on as it is, and what is not saved stays in "
                + "memory and is tried again after each line")
            return false
        }
    }

    /// Reports a problem the first time it happens: a save failing after every line says so once.
    func reportOnce(_ problem: String) {
        if reported.insert(problem).inserted { report("session '\(name)': \(problem)") }
    }

    /// The stores that handle the entry's action, comma-separated (none for a step).
    private func owners(of entry: ActionLogEntry) -> String {
        guard let action = entry.action else { return "" }
        return dispatcher.stores.filter { $0.handles(action.name) }.map(\.name).joined(separator: ",")
    }

    /// Reads the database for a command: an error is the session's, in words for the user.
    func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch {
            throw SessionError("session '\(name)': cannot read \(path): \(Self.describe(error))")
        }
    }

    /// The error's message, without the statement that met it; a damaged file says what to do.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            let message = error.message ?? "\(error.resultCode)"
            return [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) ? message + "; " + freshHint : message
        }
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError {
            return underlying.localizedDescription
        }
        return "\(error)"
    }
}
