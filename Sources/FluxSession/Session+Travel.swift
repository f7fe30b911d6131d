import Flux
import GRDB

/// Where ``Session/goTo(entry:decode:)`` went.
public struct JournalTravel {
    /// The entry right after which the stores now are.
    public let entry: Int
    /// The journal's length before the travel (the travel is journalled after it, as one entry).
    public let journalLength: Int
    /// The entry the snapshot it started from was taken after.
    public let snapshot: Int
    /// How many entries it replayed from that snapshot.
    public let replayed: Int
    /// The stores whose states it changed (none: the stores were already so, and nothing was journalled).
    public let changed: [String]
}

extension Session {
    /// The entries ``goTo(entry:decode:)`` reaches: from the oldest snapshot — or the first entry kept,
    /// after a compaction — to the journal's end; nil when none (no snapshot yet, or an empty journal
    /// after a compaction). `0`, the state before the first entry, is reachable while nothing was
    /// compacted away and the session began with the journal.
    public func reachableEntries() throws -> ClosedRange<Int>? {
        save()
        guard let oldest = try oldestSnapshot() else { return nil }
        let lower = max(oldest, firstNumber == 1 ? 0 : firstNumber), upper = nextNumber - 1
        return lower <= upper ? lower ... upper : nil
    }

    /// Puts every store to its state right after journal entry `number`, as one undo step labelled
    /// `goto N`: the nearest snapshot at or before it is read, and the journal's actions from there to
    /// `number` are replayed through the dispatcher silently (``Dispatcher/silently(_:)``: subscribers
    /// hear none of them), all or nothing; then every store goes back to how it was, and the stores whose
    /// states differ take the states reached in one step (``Dispatcher/setStates(_:label:)``), which
    /// ``Dispatcher/undo()`` takes back. The travel is journalled as an entry holding those states, so that
    /// the journal, and an export of it, replays to the same states; a travel that changes nothing
    /// journals nothing.
    ///
    /// A store defined after the snapshot was taken starts the replay from its state now.
    ///
    /// - Parameter decode: how a journal line's action is built (by default through the dispatcher's
    ///   registry).
    /// - Throws: ``SessionError`` naming the reachable range for an entry out of it (compacted away,
    ///   before the first snapshot, past the end), or saying which entry no longer replays; nothing
    ///   has changed then.
    @discardableResult
    public func goTo(entry number: Int, decode: ActionLogEntry.Decode? = nil) throws -> JournalTravel {
        guard save() else { throw SessionError("session '\(name)': what is pending cannot be saved, so there was no travel") }
        guard let reach = try reachableEntries() else {
            throw SessionError(nextNumber - 1 < firstNumber ? "the journal is empty: there is no entry to go to"
                : "no snapshot of the stores yet: there is no entry to go to")
        }
        guard reach.contains(number) else {
            let why = number < firstNumber && firstNumber > 1 ? " (entries 1-\(firstNumber - 1) were compacted away)" : ""
            throw SessionError("no entry \(number) to go to: :goto reaches entries \(reach.lowerBound)-\(reach.upperBound)\(why)")
        }
        let length = nextNumber - 1
        let (base, snapshot, rows) = try read { db in
            let base = try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM snapshot WHERE seq <= ? AND typeof(seq) = 'integer'", arguments: [number]) ?? 0
            let snapshot = try Row.fetchAll(db, sql: "SELECT seq, store, format, state FROM snapshot WHERE seq = ?", arguments: [base])
                .map { row in
                    let checked = SessionRow(row, table: "snapshot", key: "seq")
                    let store = try checked.text("store")
                    let state = try chunks.text(try checked.text("state"), table: "snapshot", key: checked.key + ", store = '\(store)'", in: db)
                    return EncodedState(store: store, format: try checked.text("format"), state: state)
                }
            // The rows holding entries base + 1 ... number (none when the snapshot is at the entry).
            // From the row holding entry base + 1, found by the key: a condition on seq + count would scan
            // every row before it.
            let rows = number == base ? [] : try Row.fetchAll(db, sql: """
                SELECT seq, count, line, stores FROM journal
                WHERE seq >= IFNULL((SELECT MAX(seq) FROM journal WHERE seq <= ?1), ?1) AND seq <= ?2 ORDER BY seq
                """, arguments: [base + 1, number])
            // Entries made by handlers that changed since would replay to other states.
            var touched = Set<String>()
            for row in rows {
                let stores: String = (try? SessionRow(row, table: "journal", key: "seq").text("stores")) ?? ""
                for store in stores.split(separator: ",") { touched.insert(String(store)) }
            }
            if !rows.isEmpty, let change = try codeChange(after: base, touching: touched, in: db) {
                let last = try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM snapshot WHERE seq <= ? AND typeof(seq) = 'integer'",
                                            arguments: [change.seq]) ?? base
                throw SessionError("cannot go to entry \(number) exactly: store '\(change.store)' was defined again with other "
                    + "handlers after entry \(change.seq) (\(change.origin): a :reload, or a plugin changed), and entries "
                    + "\(base + 1)-\(min(number, change.seq)) were made by its earlier ones, which the journal cannot replay now; "
                    + ":goto reaches entry \(change.seq) and later, and entry \(last) before it (saved states); nothing has changed")
            }
            return (base, snapshot, rows)
        }
        let decode = decode ?? ActionLogEntry.decoding(with: dispatcher.registry)
        var entries: [(line: Int, entry: ActionLogEntry)] = []
        for row in rows {
            let checked = SessionRow(row, table: "journal", key: "seq")
            let seq: Int, count: Int, line: String
            do {
                (seq, count, line) = (try checked.integer("seq"), try checked.integer("count", in: SessionRow.countRange), try checked.text("line"))
            } catch {
                throw SessionError("cannot go to entry \(number): \(error); nothing has changed")
            }
            let (from, to) = (max(seq, base + 1), min(seq + count - 1, number))
            guard from <= to else { continue } // a row ending before the snapshot (its numbers damaged)
            let entry: ActionLogEntry
            do {
                entry = try ActionLogEntry.parse(line, decode: decode)
            } catch {
                throw SessionError("cannot go to entry \(number): entry \(max(seq, base + 1)) no longer replays: \(error)")
            }
            for each in from ... to { entries.append((each, entry)) }
        }
        let restored: [(target: any DispatchTarget, state: Any)]
        do {
            restored = try snapshot.map { try $0.decoded(in: dispatcher) }
        } catch {
            throw SessionError("cannot go to entry \(number): the snapshot after entry \(base) no longer fits: \(error)")
        }
        var reached: [(target: any DispatchTarget, state: Any)] = []
        do {
            // Silently: subscribers hear the travel's one step below, not each action replayed to find it.
            try dispatcher.silently {
                try dispatcher.allOrNothing { () throws -> Void in
                    // No undo or redo lies between a snapshot and the next (one is taken after each), so the
                    // replay needs no undo history.
                    for (target, state) in restored { (target as? any TransactionalTarget)?.restore(state) }
                    try ActionReplayer(dispatcher: dispatcher, decode: decode).replay(entries)
                    reached = dispatcher.stores.compactMap { store in
                        (store as? any TransactionalTarget).map { (store, $0.snapshot()) }
                    }
                    throw Rewind()
                }
            }
        } catch is Rewind {
        } catch let error as ReplayError {
            throw SessionError("cannot go to entry \(number): entry \(error.line): \(error.message)")
        } catch {
            throw SessionError("cannot go to entry \(number): \(error)")
        }
        // The step and the journal's entry hold only the stores the travel changes.
        let changed = reached.filter { target, state in
            guard let store = target as? any PersistentState, let new = try? store.encodeState(state),
                  let now = try? store.encodeState(store.snapshot()) else { return true }
            return new != now
        }
        if !changed.isEmpty {
            try dispatcher.setStates(changed, label: "goto \(number)")
            save()
        }
        return JournalTravel(entry: number, journalLength: length, snapshot: base, replayed: entries.count,
                             changed: changed.map(\.target.name))
    }
}

/// Thrown to put every store back once the replay reached the states wanted.
private struct Rewind: Error {}

