import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// A session database changed between runs — by hand, by another program, by a damaged disk — as
/// `sqlite3` would change it: the session never crashes on it, keeps what is sound, and says what it left out.
@Suite("Sessions whose database was tampered with")
struct SessionTamperingSpec {
    let folder = sessionFolder()
    var path: String { folder.appendingPathComponent("work.sqlite").path }

    final class Messages {
        var all: [String] = []
        var text: String { all.joined(separator: "\n") }
    }

    /// A dispatcher with a counter and a second store, its session opened, restored and attached.
    func start(name: String = "work", messages: Messages = Messages()) throws -> (Dispatcher, CounterStore, OtherStore, Session) {
        let dispatcher = Dispatcher()
        let counter = CounterStore(dispatcher: dispatcher)
        let other = OtherStore(dispatcher: dispatcher)
        let session = try Session.open(name: name, directory: folder, dispatcher: dispatcher, report: { messages.all.append($0) })
        session.restore()
        session.attach()
        return (dispatcher, counter, other, session)
    }

    /// Three steps on the counter (1, 2, 3: 6 in all) and one on the other store, each a line; closed.
    func saved() throws {
        let (dispatcher, _, _, session) = try start()
        for by in 1 ... 3 {
            try dispatcher.dispatch(Add(by: by))
            session.save()
        }
        try dispatcher.dispatch(OtherAdd(by: 40))
        session.close()
    }

    func tamper(_ sql: String) throws {
        try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
    }

    @Test("a saved state stored as a BLOB: no crash; that store starts empty, named with its table and key; the row stays")
    func stateAsBlob() throws {
        try saved()
        try tamper("UPDATE state SET state = X'FFFE7B0022' WHERE store = 'counter'")
        let messages = Messages()
        let (_, counter, other, session) = try start(messages: messages)
        #expect(counter.state.count == 0)
        #expect(other.state.count == 40)
        #expect(messages.text.contains("table 'state', row store = 'counter': column 'state' holds a BLOB of 5 bytes, not text"), "\(messages.text)")
        session.close()
        let kept = try DatabaseQueue(path: path).read { db in try DatabaseValue.fetchOne(db, sql: "SELECT state FROM state WHERE store = 'counter'") }
        #expect(kept == Data([0xFF, 0xFE, 0x7B, 0x00, 0x22]).databaseValue)
    }

    @Test("journal rows with count 0, -3 and 'abc': :history lists the others and names each bad row; :goto refuses across one")
    func damagedCounts() throws {
        try saved()
        try tamper("UPDATE journal SET count = 0 WHERE seq = 2")
        try tamper("UPDATE journal SET count = -3 WHERE seq = 3")
        try tamper("UPDATE journal SET count = 'abc' WHERE seq = 4")
        let messages = Messages()
        let (_, _, _, session) = try start(messages: messages)
        let listing = try session.journalListing(1 ... 10)
        #expect(listing.entries.map(\.number) == [1])
        #expect(listing.damaged == [
            "table 'journal', row seq = 2: column 'count' holds 0, not an integer in 1...281474976710656",
            "table 'journal', row seq = 3: column 'count' holds -3, not an integer in 1...281474976710656",
            "table 'journal', row seq = 4: column 'count' holds 'abc', not an integer in 1...281474976710656",
        ])
        let error = try #require(throws: SessionError.self) { try session.goTo(entry: 3) }
        #expect(error.description.contains("table 'journal', row seq = 2"), "\(error)")
        #expect(try session.goTo(entry: 1).entry == 1)
    }

    @Test("a journal row with a count far too large does not overflow the numbers after it")
    func hugeCount() throws {
        try saved()
        try tamper("UPDATE journal SET count = 9223372036854775807 WHERE seq = 4")
        let messages = Messages()
        let (dispatcher, counter, _, session) = try start(messages: messages)
        #expect(messages.text.contains("table 'journal', row seq = 4: column 'count' holds 9223372036854775807"), "\(messages.text)")
        try dispatcher.dispatch(Add(by: 1))
        #expect(session.save())
        #expect(counter.state.count == 7)
        #expect(session.journalLength == 5)
    }

    @Test("an undo-history row that is not JSON costs the steps beyond it, not the states or the nearer steps")
    func badHistoryRow() throws {
        try saved()
        // Positions: 0, 1, 2 the counter's steps, 3 the other store's (the newest).
        try tamper("UPDATE history SET changes = 'not json' WHERE position = 1")
        do {
            let messages = Messages()
            let (dispatcher, counter, other, session) = try start(messages: messages)
            #expect(counter.state.count == 6 && other.state.count == 40)
            #expect(dispatcher.history.undoLabels == ["counter.add", "other.add"])
            #expect(messages.text.contains("table 'history', row position = 1: column 'changes' is not a saved step"), "\(messages.text)")
            #expect(messages.text.contains("2 of its 4 steps were dropped"), "\(messages.text)")
            // The next line saves: every state is still there.
            try dispatcher.dispatch(Add(by: 100))
            session.close()
        }
        let (again, counterAgain, otherAgain, _) = try start()
        #expect(counterAgain.state.count == 106 && otherAgain.state.count == 40)
        #expect(again.history.undoLabels == ["counter.add", "other.add", "counter.add"])
    }

    @Test("undo history is saved step by step: a line adds its step's row and deletes the dropped one, leaving the others")
    func incrementalHistory() throws {
        var total = 0
        do {
        let (dispatcher, counter, _, session) = try start()
        dispatcher.history.limit = 3
        for by in 1 ... 3 {
            try dispatcher.dispatch(Add(by: by))
            session.save()
        }
        let before = try session.database.read { db in try Row.fetchAll(db, sql: "SELECT position, changes FROM history ORDER BY position") }
        try dispatcher.dispatch(Add(by: 4))
        session.save()
        let after = try session.database.read { db in try Row.fetchAll(db, sql: "SELECT position, changes FROM history ORDER BY position") }
        #expect(Array(before.dropFirst()) == Array(after.prefix(2)), "the kept rows are the same rows")
        #expect(after.count == 3)
        try dispatcher.undo()
        session.close()
        total = counter.state.count
        }
        let (again, counterAgain, _, _) = try start()
        #expect(counterAgain.state.count == total)
        #expect(again.history.undoLabels.count == 2 && again.history.redoLabels.count == 1)
        try again.redo()
        #expect(counterAgain.state.count == 10)
        try again.undo()
        try again.undo()
        try again.undo()
        #expect(counterAgain.state.count == 1)
    }

    @Test("a session reached through a symbolic link under another name is the same file, and the same lock")
    func lockFollowsTheFile() throws {
        let (_, _, _, session) = try start()
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("alias.sqlite").path, withDestinationPath: path)
        let error = try #require(throws: SessionError.self) {
            try Session.open(name: "alias", directory: folder, dispatcher: Dispatcher())
        }
        #expect(error.description.contains("is open in another fluxsh"), "\(error)")
        session.close()
    }

    @Test("another session's write-ahead log left beside the database is refused before SQLite applies it; the session's own is applied")
    func foreignWAL() throws {
        try saved()
        // Another session, its log copied while it is open (as a crash would leave it).
        let (otherDispatcher, _, _, otherSession) = try start(name: "else")
        try otherDispatcher.dispatch(Add(by: 1_000))
        otherSession.save()
        let elsePath = folder.appendingPathComponent("else.sqlite").path
        let foreign = try Data(contentsOf: URL(fileURLWithPath: elsePath + "-wal"))
        otherSession.close()
        try foreign.write(to: URL(fileURLWithPath: path + "-wal"))
        let error = try #require(throws: SessionError.self) { try start() }
        #expect(error.description.contains("work.sqlite-wal belongs to another database"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")) == foreign, "left as it was")
        try FileManager.default.removeItem(atPath: path + "-wal")
        let (_, counter, _, _) = try start()
        #expect(counter.state.count == 6)
    }

    @Test("the session's own write-ahead log, left by a crash, is applied")
    func ownWAL() throws {
        let own: Data
        do {
            let (dispatcher, _, _, session) = try start()
            try dispatcher.dispatch(Add(by: 7))
            session.save()
            own = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
            session.close()
        }
        try own.write(to: URL(fileURLWithPath: path + "-wal"))
        let (_, counter, _, _) = try start()
        #expect(counter.state.count == 7)
    }

    @Test("a sessions folder that cannot be made says which file is in the way, in words")
    func folderInTheWay() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("state")
        try Data("x".utf8).write(to: file)
        let error = try #require(throws: SessionError.self) {
            try Session.open(name: "work", directory: file.appendingPathComponent("fluxsh/sessions"), dispatcher: Dispatcher())
        }
        #expect(error.description == "session 'work': cannot create a directory in \(file.path): Not a directory")
    }
}

struct OtherAdd: Action, Equatable {
    static let name = "other.add"
    var by = 1
}

/// A second store, answering to its own action.
final class OtherStore: Store<CounterState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "other", state: CounterState(), dispatcher: dispatcher)
        on(OtherAdd.self) { state, action in state.count += action.by }
    }
}
