import Flux
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

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
    /// The id in the database's header, written again by every save (see ``SessionWAL``).
    var sessionID: Int32 = 0
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
    var pendingStates: [String: SavedState] = [:]
    /// The saved history, until every store it changes is registered.
    var pendingSteps: [PendingStep]?
    /// The history's version when restoring began: a step recorded since means the saved one is stale.
    var restoredHistoryVersion = 0
    private var reported: Set<String> = []
    /// The `history` row of each undo or redo step saved, by the step's number in the history: a step is
    /// encoded and written once, and a save writes only the steps added and deletes those gone.
    private var savedStepKeys: [Int: Int] = [:]
    /// The `position` the next step saved gets (at least one past every row in the table).
    private var nextStepKey = 0
    /// Each store's state as last saved, when it is an object, with the text its row holds: see
    /// ``storedText(_:_:)``.
    private var lastStored: [String: (object: AnyObject, text: String)] = [:]
    /// The pieces of large texts.
    let chunks = SessionChunks()
    /// The journal's subscription to the dispatcher's settled commits, while it journals.
    var journalReading: Int?
    /// Writes the journal's rows at a save.
    lazy var journalRows = SessionJournalRows(table: "journal", key: "seq", keyedByEntries: true) { [weak self] name in
        self?.owners(ofAction: name) ?? ""
    }
    /// What `:history` shows of each undo step, aligned with the history's undo steps then its redo
    /// steps next first; saved with each step. Nil, or nil for a step: not known.
    public var stepRecords: (() -> [StepRecord?]?)?
    /// Hears what `:history` showed of each step of a restored history, aligned as ``stepRecords``.
    public var didRestoreSteps: (([StepRecord?]) -> Void)?
    /// A version of the code that handles a store's actions, and who defined it (nil: not known, as for
    /// Swift stores): see ``noteCodeVersions()``.
    public var codeVersion: ((any StoreProtocol) -> (version: String, origin: String)?)?
    /// The latest version recorded of each store's code.
    var knownCode: [String: String] = [:]
    /// Versions noted since the last save, each after the first `entries` pending entries.
    var pendingCode: [(entries: Int, store: String, version: String, origin: String)] = []
    /// The outbox entries to write with the journal (see ``outboxStorage()``).
    var outbox: SessionOutbox?
    /// The restored history's steps by their saved rows: each `history` row's position, with the number
    /// the history gave its step (how an outbox entry read back finds the step that holds its action).
    var restoredSteps: [Int: Int] = [:]

    init(name: String, path: String, lock: SessionLock, database: DatabaseQueue, dispatcher: Dispatcher,
         clock: @escaping () -> Double, report: @escaping (String) -> Void) throws {
        self.lock = lock
        self.name = name
        self.path = path
        self.database = database
        self.dispatcher = dispatcher
        self.clock = clock
        self.report = report
        journal = SessionJournal()
        var damage: [String] = []
        (firstNumber, nextNumber, lastSnapshot, knownCode) = try database.read { db in
            let (first, next, snapshot) = try Self.numbers(in: db, damage: &damage)
            return (first, next, snapshot, try Self.readCode(db, damage: &damage))
        }
        for problem in damage { report("session '\(name)': \(problem)") }
        chunks.source = { [weak dispatcher] text, store in (dispatcher?.store(named: store) as? any PiecewiseState)?.pieces(ofEncoded: text) }
    }

    /// The largest entry number a journal row may have: a key past it is damage (numbers after it
    /// would overflow).
    static let seqRange = 1 ... (1 << 52)

    /// The journal's first entry kept, the number the next entry gets and the newest snapshot's entry,
    /// read with every value checked: a damaged value is said in `damage` and the session goes on from
    /// what is sound (new rows never take the number of a row that is there).
    private static func numbers(in db: GRDB.Database, damage: inout [String]) throws -> (Int, Int, Int?) {
        func checked<T>(_ fallback: T, _ read: () throws -> T) throws -> T {
            do { return try read() } catch let error as DamagedRow {
                damage.append("\(error); read as if it were not there")
                return fallback
            }
        }
        let start: Int? = try checked(nil) { () throws -> Int? in try checkedInteger(db, "SELECT seq FROM journalStart", table: "journalStart") }
        let first: Int = start.map { value in Swift.max(1, Swift.min(value, seqRange.upperBound)) } ?? 1
        // The last row by its key: MAX(seq + count) would read the whole journal. A journal
        // compacted to nothing goes on from its first entry kept.
        var next = first
        if let row = try Row.fetchOne(db, sql: "SELECT seq, count FROM journal WHERE seq <= ? ORDER BY seq DESC LIMIT 1",
                                      arguments: [seqRange.upperBound]) {
            let last = SessionRow(row, table: "journal", key: "seq")
            let seq = try last.integer("seq")
            let count: Int = try checked(1) { () throws -> Int in try last.integer("count", in: SessionRow.countRange) }
            next = max(first, seq + count)
        }
        let snapshot: Int? = try checked(nil) { () throws -> Int? in
            try checkedInteger(db, "SELECT MAX(seq) FROM snapshot WHERE typeof(seq) = 'integer'", table: "snapshot")
        }
        return (first, next, snapshot)
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
            try SessionPaths.createDirectory(directory.path)
            // A file that is empty, or that this call just made, is no earlier session to keep aside.
            let existed = SessionPaths.holdsSomething(path)
            var lock = try SessionLock(path: path, name: name)
            var aside: String?
            if fresh, existed {
                aside = try SessionPaths.moveAside(path, name: name, in: directory, time: clock())
                lock = try SessionLock(path: path, name: name) // the new file's
            }
            try SessionWAL.check(path)
            let (database, id) = try SessionDatabase.open(path: path)
            let session = try Session(name: name, path: path, lock: lock, database: database, dispatcher: dispatcher,
                                      clock: clock, report: report)
            session.sessionID = id
            session.movedAside = aside
            return session
        } catch let error as SessionError {
            throw error
        } catch let error as FileError {
            throw SessionError("session '\(name)': \(error)")
        } catch let error as SessionWAL.Foreign {
            throw SessionError("session '\(name)': \(error); the files are left as they are (move \(path)-wal away if it is "
                + "not this session's, or \(freshHint))")
        } catch let error as SessionDatabase.NewerSchema {
            throw SessionError("session '\(name)': \(path) was written by a newer fluxsh (schema "
                + "\(error.versions.joined(separator: ", ")) is unknown here) and is left as it is; \(freshHint)")
        } catch {
            throw SessionError("session '\(name)': cannot open \(path): \(Self.describe(error))")
        }
    }

    /// What a user can do about a database this fluxsh cannot use.
    private static let freshHint = "--fresh starts the session empty and keeps that file beside it"

    /// Starts journalling what the dispatcher commits (after ``restore()``): the journal reads the
    /// dispatcher's ``SettledCommits`` as each commit happens, and the session's clock gives every
    /// commit its time, so that the journal's lines and a recording's carry the same.
    public func attach() {
        guard !isJournalling else { return }
        markHistorySaved()
        // A long line (a script, a loop) keeps the journal within its limit as it goes, not only once it ends.
        journal.onDeadline = { [weak self] in
            guard let self, save() else { return }
            trimJournal()
        }
        journal.deadline = clock() + saveInterval
        journal.snapshotInterval = max(1, snapshotInterval)
        journal.takeSnapshot = { [weak self] in self?.snapshotStates(reusing: []) ?? [] }
        journal.spill = journalSpill()
        SettledCommits.of(dispatcher).clock = clock
        isJournalling = true
        noteCodeVersions()
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
        isJournalling = false
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
        guard !journal.runs.isEmpty || !journal.snapshots.isEmpty || !pendingCode.isEmpty || history.version != savedHistoryVersion
        else { return true }
        var problems: [String] = []
        // The steps added since the last save; those gone are deleted by their rows. First, while the
        // states last saved are still known by their objects: a new step holds such a state.
        var steps: (added: [(number: Int, stack: String, step: SavedStep)], kept: Set<Int>)?
        if history.version != savedHistoryVersion {
            do {
                let (undo, redo) = history.steps
                var added: [(number: Int, stack: String, step: SavedStep)] = [], kept: Set<Int> = []
                // What :history shows of each step, as the shell tells it: undo steps, then redo steps next first.
                var records: [StepRecord?]?
                for (stack, entries) in [("undo", undo), ("redo", redo)] {
                    for (index, entry) in entries.enumerated() {
                        if let key = savedStepKeys[entry.number] {
                            kept.insert(key)
                            continue
                        }
                        if records == nil { records = stepRecords?() ?? [] }
                        let position = stack == "undo" ? index : undo.count + redo.count - 1 - index
                        let record = records.flatMap { $0.indices.contains(position) ? $0[position] : nil }
                        added.append((entry.number, stack, try SavedStep(entry, record: record, encoded: storedText)))
                    }
                }
                steps = (added, kept)
            } catch {
                problems.append("the undo history cannot be saved: \(Self.describe(error))")
            }
        }
        // The stores that handle an action committed since the last save: the others did not change.
        let stores = journal.travelled ? dispatcher.stores : dispatcher.stores.filter { store in
            store.handlesEveryAction || journal.actionNames.contains { store.handles($0) }
        }
        var objects: [(store: String, object: AnyObject)] = []
        let states = stores.compactMap { store -> (name: String, format: String, state: String)? in
            guard let store = store as? any PersistentState else { return nil }
            do {
                let snapshot = store.snapshot()
                if type(of: snapshot) is AnyObject.Type { objects.append((store.name, snapshot as AnyObject)) }
                return (store.name, store.stateFormat, try store.encodeState(snapshot))
            } catch {
                problems.append("store '\(store.name)': its state cannot be saved: \(Self.describe(error))")
                return nil
            }
        }
        for problem in problems { reportOnce(problem) }
        let taken = journal.snapshots.map { (seq: nextNumber - 1 + $0.entries, states: $0.states) }
        do {
            var number = nextNumber
            var stepKeys: [Int: Int]?
            var stored: [String: String] = [:]
            try database.write { db in
                number = nextNumber
                if sessionID != 0 { try SessionDatabase.setID(sessionID, in: db) }
                number = try journal.spill?.move(into: db, from: number) ?? number
                number = try journalRows.write(journal.runs, from: number, into: db)
                let upsert = try db.cachedStatement(sql: """
                    INSERT INTO state (store, format, state, seq) VALUES (?, ?, ?, ?)
                    ON CONFLICT (store) DO UPDATE SET format = excluded.format, state = excluded.state, seq = excluded.seq
                    """)
                for state in states {
                    let text = try chunks.store(state.state, of: state.name, current: true, in: db)
                    stored[state.name] = text
                    try upsert.execute(arguments: [state.name, state.format, text, number - 1])
                }
                for (seq, states) in taken { try insertSnapshot(states, at: seq, into: db) }
                try writeCode(from: nextNumber - 1, into: db)
                try outbox?.write(into: db)
                if let steps {
                    let added = try steps.added.map { added in
                        (added.number, added.stack, try added.step.storing { try chunks.store($0, of: $1, current: false, in: db) }.json)
                    }
                    stepKeys = try Self.writeSteps(added, keeping: steps.kept, from: nextStepKey, into: db)
                }
                try outbox?.linkSteps(in: db) { number in stepKeys?[number] ?? savedStepKeys[number] }
            }
            chunks.commit()
            outbox?.didCommit()
            for (store, object) in objects { if let text = stored[store] { lastStored[store] = (object, text) } }
            nextNumber = number
            if let last = taken.last { lastSnapshot = last.seq }
            if let stepKeys, let steps {
                // Steps added at this save, and the saved ones still in the history.
                savedStepKeys = savedStepKeys.filter { steps.kept.contains($0.value) }.merging(stepKeys) { $1 }
                nextStepKey = (stepKeys.values.max() ?? nextStepKey - 1) + 1
                savedHistoryVersion = history.version
            }
            journal.clear()
            pendingCode = []
            return true
        } catch {
            chunks.discard()
            reportOnce("not saved: \(Self.describe(error)); every store goes on as it is, and what is not saved stays in "
                + "memory and is tried again after each line")
            return false
        }
    }

    /// Writes the undo and redo steps added (each in a row of its own, numbered past every row there, so
    /// that each stack reads back in its order) and deletes the rows of the steps gone: a line costs the
    /// steps it made, not the whole history. Returns each added step's row by its history number.
    private static func writeSteps(_ added: [(Int, String, String)], keeping kept: Set<Int>, from next: Int,
                                   into db: GRDB.Database) throws -> [Int: Int] {
        let keptJSON = "[" + kept.sorted().map(String.init).joined(separator: ",") + "]"
        try db.execute(sql: "DELETE FROM history WHERE position NOT IN (SELECT value FROM json_each(?))", arguments: [keptJSON])
        let last = try checkedInteger(db, "SELECT MAX(position) FROM history WHERE position BETWEEN 0 AND ?",
                                      arguments: [stepKeyRange.upperBound], table: "history")
        var key = max(next, (last ?? -1) + 1)
        var keys: [Int: Int] = [:]
        let add = try db.cachedStatement(sql: "INSERT INTO history (position, stack, changes) VALUES (?, ?, ?)")
        for (number, stack, json) in added {
            try add.execute(arguments: [key, stack, json])
            keys[number] = key
            key += 1
        }
        return keys
    }

    /// The positions undo steps are saved at: one past a million a second for a century fits.
    static let stepKeyRange = 0 ... (1 << 52)

    /// The history was put back from saved rows (`nil`: a step not saved yet), in the order given to
    /// ``History/replaceSteps(undo:redo:)``: each step the history kept is known by its row.
    func stepKeysRestored(undo: [Int?], redo: [Int?]) {
        let (nowUndo, nowRedo) = dispatcher.history.steps
        savedStepKeys = [:]
        // The history keeps the newest undo steps of those given, and every redo step.
        for (entry, key) in zip(nowUndo.reversed(), undo.reversed()) { if let key { savedStepKeys[entry.number] = key } }
        for (entry, key) in zip(nowRedo, redo) { if let key { savedStepKeys[entry.number] = key } }
        nextStepKey = max(nextStepKey, ((undo + redo).compactMap { $0 }.max() ?? -1) + 1)
        restoredSteps = Dictionary(savedStepKeys.map { ($0.value, $0.key) }) { first, _ in first }
    }

    /// The text a target's state was last saved as (as its row holds it: in pieces, for a large one),
    /// if `snapshot` is that very state — an object, such as a Lua store's table: the undo step made by
    /// the next change holds it, and is saved without encoding it again.
    private func storedText(_ target: any DispatchTarget, _ snapshot: Any) -> String? {
        guard type(of: snapshot) is AnyObject.Type, let last = lastStored[target.name], last.object === (snapshot as AnyObject)
        else { return nil }
        return last.text
    }

    /// Reports a problem the first time it happens: a save failing after every line says so once.
    func reportOnce(_ problem: String) {
        if reported.insert(problem).inserted { report("session '\(name)': \(problem)") }
    }

    /// The stores that handle the action named `name`, comma-separated (the journal's `stores` column).
    func owners(ofAction name: String) -> String {
        dispatcher.stores.filter { $0.handles(name) }.map(\.name).joined(separator: ",")
    }

    /// Reads the database for a command: an error is the session's, in words for the user.
    func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as SessionError {
            throw error
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
