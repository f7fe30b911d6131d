import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

@Suite("Sessions whose file is damaged or newer")
struct SessionDamageSpec {
    let folder = sessionFolder()

    var path: String { folder.appendingPathComponent("work.sqlite").path }

    /// A session holding one action, closed.
    func saved() throws {
        let dispatcher = Dispatcher()
        _ = CounterStore(dispatcher: dispatcher)
        let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher)
        session.restore()
        session.attach()
        try dispatcher.dispatch(Add(by: 4))
        session.close()
    }

    func open(fresh: Bool = false) throws -> Session {
        try Session.open(name: "work", fresh: fresh, directory: folder, dispatcher: Dispatcher())
    }

    @Test("a database a newer fluxsh brought to a schema unknown here is refused, named, and left as it was")
    func newerSchema() throws {
        try saved()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
            try db.execute(sql: "CREATE TABLE later (x TEXT)")
        }
        let error = try #require(throws: SessionError.self) { try open() }
        #expect(error.description.contains("written by a newer fluxsh") && error.description.contains("v99"))
        #expect(error.description.contains("--fresh"))
        let rows = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        }
        #expect(rows.last == "v99")
    }

    @Test("a file that is not a database, or a truncated one, is refused naming --fresh, which keeps it aside")
    func damaged() throws {
        try saved()
        try Data(repeating: 0x5A, count: 20_000).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SessionError.self) { try open() }
        #expect(error.description.contains("not a database") && error.description.contains("--fresh"))
        let session = try open(fresh: true)
        #expect(session.journalLength == 0)
        let aside = try #require(session.movedAside)
        #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == Data(repeating: 0x5A, count: 20_000))
    }
}

extension SessionDamageSpec {
    @Test("a save the disk refuses: said once, the stores go on; closing then says what is lost")
    func refusedSaves() throws {
        var messages: [String] = []
        let dispatcher = Dispatcher()
        let counter = CounterStore(dispatcher: dispatcher)
        let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher) { messages.append($0) }
        session.restore()
        session.attach()
        try session.database.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'disk full'); END")
        }
        for by in 1 ... 3 {
            try dispatcher.dispatch(Add(by: by))
            #expect(!session.save())
        }
        #expect(counter.state.count == 6)
        #expect(messages.count == 1)
        #expect(messages.first?.contains("not saved: disk full; every store goes on as it is") == true)
        session.close()
        #expect(messages.count == 2)
        #expect(messages.last?.contains("(3 actions and steps) could not be saved, and is lost") == true)
    }
}

extension SessionDamageSpec {
    @Test("a journal damaged in the middle: the states come back; reading the journal is refused in words, naming --fresh")
    func damagedJournal() throws {
        do {
            let dispatcher = Dispatcher()
            _ = CounterStore(dispatcher: dispatcher)
            let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher)
            session.restore()
            session.attach()
            for by in 1 ... 20_000 { try dispatcher.dispatch(Add(by: by)) } // a row each: pages of journal
            session.close()
        }
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try file.seekToEnd()
        try file.seek(toOffset: size / 2 - size / 10)
        file.write(Data(repeating: 0x5A, count: Int(size / 5)))
        try file.close()
        let dispatcher = Dispatcher()
        let counter = CounterStore(dispatcher: dispatcher)
        let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher)
        session.restore()
        #expect(counter.state.count == 20_000 * 20_001 / 2)
        let error = try #require(throws: SessionError.self) { try session.journal(1 ... 20_000) }
        #expect(error.description.contains("malformed") && error.description.contains("--fresh"), "\(error)")
        #expect(!error.description.contains("SELECT"))
    }
}
