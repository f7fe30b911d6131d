import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// A session database damaged at random between runs — bytes of the file flipped, columns set to values
/// of every kind, rows deleted or added — and used again: the session never crashes (a crash ends this
/// process, and the spec with it), never loses a journal or state row it did not have to, and names
/// each damaged row it reads.
@Suite("Sessions damaged at random between runs")
struct SessionFuzzSpec {
    static let runs = 1_000

    /// The same damage on every machine: a run that fails can be run again by its number.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    static let values: [DatabaseValue] = [
        .null, 0.databaseValue, (-3).databaseValue, Int64.max.databaseValue, Int64.min.databaseValue, 1.5.databaseValue,
        "abc".databaseValue, "".databaseValue, "undo".databaseValue, #"{"label":"x","changes":[]}"#.databaseValue,
        #"{"count":-1}"#.databaseValue, "[[\"count\",1]]".databaseValue, Data([0xFF, 0xFE, 0x7B, 0x00]).databaseValue,
        (1 << 52).databaseValue, 2.databaseValue,
    ]

    static let columns: [(table: String, columns: [String])] = [
        ("journal", ["seq", "count", "line", "stores", "lastTime"]),
        ("state", ["store", "format", "state", "seq"]),
        ("history", ["position", "stack", "changes"]),
        ("snapshot", ["seq", "store", "format", "state"]),
        ("journalStart", ["id", "seq", "compactedAt"]),
    ]

    /// A session of a few dozen lines, with runs, groups, undo, redo and snapshots, closed: the file each
    /// run damages a copy of.
    static func base(in folder: URL) throws -> String {
        let dispatcher = Dispatcher()
        _ = CounterStore(dispatcher: dispatcher)
        _ = OtherStore(dispatcher: dispatcher)
        let session = try Session.open(name: "base", directory: folder, dispatcher: dispatcher)
        session.snapshotInterval = 5
        session.restore()
        session.attach()
        for line in 1 ... 30 {
            switch line % 6 {
            case 0: try dispatcher.undo()
            case 1: try dispatcher.group("pair \(line)") {
                try dispatcher.dispatch(Add(by: line))
                try dispatcher.dispatch(OtherAdd(by: 1))
            }
            case 2: for _ in 0 ..< 3 { try dispatcher.dispatch(Add(by: 1)) }
            default: try dispatcher.dispatch(OtherAdd(by: line))
            }
            session.save()
        }
        session.close()
        return folder.appendingPathComponent("base.sqlite").path
    }

    /// One kind of damage, done with SQL on the closed file (or on its bytes); returns the damaged
    /// row's table and key when a column was set to a value of the wrong kind (the session must name it).
    static func damage(_ path: String, random: inout Random) -> Damage {
        do {
            switch random.below(10) {
            case 0:
                // Bytes of the file flipped, anywhere.
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                let size = try handle.seekToEnd()
                for _ in 0 ..< 1 + random.below(8) {
                    let offset = UInt64(random.below(Int(size)))
                    try handle.seek(toOffset: offset)
                    let byte = handle.readData(ofLength: 1).first ?? 0
                    try handle.seek(toOffset: offset)
                    handle.write(Data([byte ^ UInt8(1 + random.below(255))]))
                }
                return .bytes
            case 1:
                // A row deleted.
                let table = random.pick(["journal", "state", "history", "snapshot"])
                try DatabaseQueue(path: path).write { db in
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
                    guard count > 0 else { return }
                    try db.execute(sql: "DELETE FROM \(table) WHERE rowid = (SELECT rowid FROM \(table) LIMIT 1 OFFSET \(random.below(count)))")
                }
                return .other
            case 2:
                // A row added, of values of every kind.
                let (table, columns) = random.pick(columns)
                let values = columns.map { _ in random.pick(Self.values) }
                try DatabaseQueue(path: path).write { db in
                    try db.execute(sql: "INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ","))) VALUES (\(columns.map { _ in "?" }.joined(separator: ",")))",
                                   arguments: StatementArguments(values))
                }
                return .other
            default:
                // A column of a row set to a value of any kind.
                let (table, columns) = random.pick(Array(Self.columns.prefix(4)))
                let column = random.pick(columns)
                let value = random.pick(Self.values)
                let row = try DatabaseQueue(path: path).write { db -> (String, String)? in
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
                    guard count > 0 else { return nil }
                    let offset = random.below(count)
                    let key = ["journal": "seq", "state": "store", "history": "position", "snapshot": "seq"][table]!
                    let row = try Row.fetchOne(db, sql: "SELECT rowid AS id, \(key) AS key FROM \(table) LIMIT 1 OFFSET \(offset)")
                    guard let row else { return nil }
                    let id: DatabaseValue = row["id"]
                    try db.execute(sql: "UPDATE OR IGNORE \(table) SET \(column) = ? WHERE rowid = ?", arguments: [value, id])
                    guard db.changesCount > 0 else { return nil }
                    // The kinds every reader checks: text where text belongs, a positive count. (SQLite stores a
                    // number set in a TEXT column as text, and text like '2' in an INTEGER column as a number:
                    // what counts is what the row holds now.)
                    let stored = try DatabaseValue.fetchOne(db, sql: "SELECT \(column) FROM \(table) WHERE rowid = ?", arguments: [id]) ?? .null
                    let textColumns = ["line", "stores", "store", "format", "state", "stack", "changes"]
                    let wrongKind = textColumns.contains(column) ? !(stored.storage.isText)
                        : column == "count" ? !(stored.storage.isPositiveCount) : false
                    guard wrongKind, table != "snapshot", column != key else { return nil }
                    let keyValue: DatabaseValue = row["key"]
                    return (table, "\(key) = \(SessionRow.describe(keyValue))")
                }
                return row.map { .row(table: $0.0, key: $0.1) } ?? .other
            }
        } catch {
            return .other // the damage itself was refused (a file already past reading, a constraint)
        }
    }

    enum Damage {
        /// Bytes of the file flipped: anything may follow, but no crash.
        case bytes
        /// A column of a row set to a value of the wrong kind: the session must name the row.
        case row(table: String, key: String)
        case other
    }

    /// The rows the session must keep: each journal row's key and each state row's store.
    static func rows(_ path: String) -> (journal: Set<Int64>, states: Set<String>)? {
        try? DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }()).read { db in
            (Set(try Int64.fetchAll(db, sql: "SELECT seq FROM journal")),
             Set(try String.fetchAll(db, sql: "SELECT store FROM state WHERE typeof(store) = 'text'")))
        }
    }

    @Test("1,000 runs on a database damaged at random: no crash, no row lost that was sound, each damaged row read is named")
    func randomDamage() throws {
        let folder = sessionFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = try Self.base(in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: base))
        var random = Random(state: 31)
        var opened = 0, refused = 0, named = 0
        for run in 1 ... Self.runs {
            let runFolder = folder.appendingPathComponent("run")
            try? FileManager.default.removeItem(at: runFolder)
            try FileManager.default.createDirectory(at: runFolder, withIntermediateDirectories: true)
            let path = runFolder.appendingPathComponent("work.sqlite").path
            try original.write(to: URL(fileURLWithPath: path))
            var damaged: [(table: String, key: String)] = [], flipped = false
            for _ in 0 ... random.below(3) {
                switch Self.damage(path, random: &random) {
                case .bytes: flipped = true
                case let .row(table, key): damaged.append((table, key))
                case .other: break
                }
            }
            let before = Self.rows(path)
            var messages: [String] = []
            do {
                let dispatcher = Dispatcher()
                _ = CounterStore(dispatcher: dispatcher)
                _ = OtherStore(dispatcher: dispatcher)
                let session = try Session.open(name: "work", directory: runFolder, dispatcher: dispatcher) { messages.append($0) }
                opened += 1
                session.restore()
                session.attach()
                try? dispatcher.dispatch(Add(by: 1))
                session.save()
                if let listing = try? session.journalListing(1 ... session.journalLength) { messages += listing.damaged }
                if let reach = try? session.reachableEntries() {
                    _ = try? session.goTo(entry: reach.lowerBound + random.below(reach.count))
                }
                _ = try? dispatcher.undo()
                try? dispatcher.dispatch(OtherAdd(by: 2))
                session.close()
            } catch {
                refused += 1
                #expect(error is SessionError, "run \(run): \(error)")
                continue
            }
            let text = messages.joined(separator: "\n")
            for (table, key) in damaged where !flipped {
                let said = text.contains("table '\(table)', row \(key)")
                    // The history says the first of its damaged rows.
                    || table == "history" && text.contains("table 'history'")
                #expect(said, "run \(run): \(table) \(key) was damaged and not named: \(text)")
                if said { named += 1 }
            }
            if let before, let after = Self.rows(path) {
                #expect(before.journal.isSubset(of: after.journal), "run \(run): journal rows lost: \(before.journal.subtracting(after.journal).sorted())")
                #expect(before.states.isSubset(of: after.states), "run \(run): state rows lost: \(before.states.subtracting(after.states).sorted())")
            }
        }
        #expect(opened + refused == Self.runs)
        #expect(opened > Self.runs / 2, "most damage leaves a database that opens (\(opened) of \(Self.runs))")
        #expect(named > 50, "damaged rows were read and named (\(named))")
    }
}

private extension DatabaseValue.Storage {
    var isText: Bool { if case .string = self { true } else { false } }
    var isPositiveCount: Bool { if case let .int64(value) = self { value >= 1 && value <= 1 << 48 } else { false } }
}
