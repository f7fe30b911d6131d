import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// Compacting the journal: old entries go, the rest keep their numbers, states and undo history stay.
extension SessionSpec {
    @Test("compaction keeps the last entries under their numbers; a range before them is an error naming the first kept")
    func compactKeepsNumbers() throws {
        let (dispatcher, store, session) = try start()
        for _ in 0 ..< 10 { try dispatcher.dispatch(Add(by: 1)) } // entries 1-10, one row
        try dispatcher.dispatch(Add(by: 2))                        // 11
        try dispatcher.dispatch(Add(by: 3))                        // 12
        let done = try session.compact(keeping: 5)
        #expect(done.dropped == 7)
        #expect(done.firstEntry == 8 && done.journalLength == 12 && done.kept == 5)
        let kept = try session.journal(8 ... 12)
        #expect(kept.map(\.number) == [8, 9, 10, 11, 12])
        #expect(kept.map { $0.line.contains(#""by":1"#) } == [true, true, true, false, false])
        #expect(try session.summary().journalRows == 3)
        let error = try #require(throws: SessionError.self) { try session.journal(7 ... 12) }
        #expect("\(error)".contains("the journal starts at entry 8"))
        #expect(throws: SessionError.self) { try session.journal(1 ... 3) }
        try dispatcher.dispatch(Add(by: 4))
        #expect(try session.journal(13 ... 13).first?.line.contains(#""by":4"#) == true)
        #expect((store as! CounterStore).state.count == 19)
    }

    @Test("a session compacted to nothing restarts with its states, its undo history and its numbering")
    func compactToNothing() throws {
        do {
            let (dispatcher, _, session) = try start()
            try dispatcher.dispatch(Add(by: 2))
            try dispatcher.dispatch(Add(by: 5))
            try dispatcher.undo()
            let done = try session.compact(keeping: 0)
            #expect(done.dropped == 3 && done.kept == 0)
        }
        let (dispatcher, store, session) = try start()
        #expect((store as! CounterStore).state.count == 2)
        #expect(dispatcher.history.redoLabels == ["counter.add"])
        #expect(session.firstNumber == 4 && session.journalLength == 3)
        try dispatcher.redo()
        session.save()
        #expect(try session.journal(4 ... 4).first?.line.hasPrefix(#"{"step":"redo""#) == true)
        #expect((store as! CounterStore).state.count == 7)
        // A second compaction counts only what it drops.
        #expect(try session.compact(keeping: 0).dropped == 1)
    }

    @Test("compaction gives the journal's space back to the disk")
    func compactShrinks() throws {
        let (dispatcher, _, session) = try start()
        for by in 0 ..< 20_000 { try dispatcher.dispatch(Add(by: by)) } // distinct actions: a row each
        let done = try session.compact(keeping: 100)
        #expect(done.dropped == 19_900)
        #expect(done.bytesAfter * 10 < done.bytesBefore, "\(done.bytesBefore) → \(done.bytesAfter)")
        #expect(try session.summary().journalRows == 100)
    }

    // A process killed during compaction: the entries are dropped in one transaction, which SQLite
    // rolls back when the database is next opened (a killed process is what the write-ahead log is
    // for, see SessionCrashSpec). A transaction that fails part-way, as here, stands for it.
    @Test("a compaction that fails part-way leaves the journal whole")
    func compactFailsWhole() throws {
        let (dispatcher, _, session) = try start()
        for by in 1 ... 5 { try dispatcher.dispatch(Add(by: by)) }
        session.save()
        try session.database.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON journalStart BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        #expect(throws: SessionError.self) { try session.compact(keeping: 1) }
        #expect(session.firstNumber == 1)
        #expect(try session.journal(1 ... 5).count == 5)
        #expect(try session.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM journal") } == 5)
    }

    @Test("a journal past its limit by a tenth is trimmed back to the limit; states, undo history and :goto hold")
    func trimmedAtLimit() throws {
        let (dispatcher, store, session) = try start()
        session.journalLimit = 100
        session.snapshotInterval = 30
        for by in 1 ... 110 { try dispatcher.dispatch(Add(by: by)) }
        session.save()
        #expect(session.trimJournal() == 0) // 110 entries: within a tenth of the limit
        try dispatcher.dispatch(Add(by: 111))
        session.save()
        #expect(session.trimJournal() == 11)
        #expect(session.firstNumber == 12 && session.journalLength == 111)
        #expect(try session.journal(12 ... 12).first?.line.contains(#""by":12"#) == true)
        #expect(throws: SessionError.self) { try session.journal(11 ... 12) }
        #expect((store as! CounterStore).state.count == 111 * 112 / 2)
        #expect(dispatcher.history.undoLabels.count == 100)
        _ = try session.goTo(entry: 12)
        #expect((store as! CounterStore).state.count == 12 * 13 / 2)
        try dispatcher.undo()
        #expect((store as! CounterStore).state.count == 111 * 112 / 2)
    }

    @Test("a journal trimmed again and again keeps a bounded file: the pages it frees are reused")
    func trimmedFileBounded() throws {
        let (dispatcher, _, session) = try start()
        session.journalLimit = 2_000
        var sizes: [Int] = []
        for round in 0 ..< 12 {
            for by in 0 ..< 1_000 { try dispatcher.dispatch(Add(by: round * 1_000 + by)) }
            session.save()
            session.trimJournal()
            sizes.append(try session.database.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 })
        }
        #expect(session.journalLength - session.firstNumber + 1 <= 2_200)
        #expect(sizes[11] <= sizes[5] + sizes[5] / 10, "pages after each round: \(sizes)")
    }

    @Test("a long unit of work (a script, a piped run) keeps the journal within its limit as it saves by itself")
    func trimmedWhileRunning() throws {
        let (dispatcher, store, session) = try start()
        session.journalLimit = 100
        // One action every 50 ms of the clock, never a save from the owner: the session saves by itself
        // every 100 ms, and trims then.
        for by in 1 ... 1_000 {
            clock.now += 0.05
            try dispatcher.dispatch(Add(by: by))
        }
        #expect(session.journalLength == 1_000)
        #expect(session.journalLength - session.firstNumber + 1 <= 110, "first entry kept: \(session.firstNumber)")
        #expect((store as! CounterStore).state.count == 1_000 * 1_001 / 2)
        session.save()
        #expect(try session.journal(session.firstNumber ... 1_000).count == 1_000 - session.firstNumber + 1)
    }

    @Test("a trim the database refuses leaves the journal whole and says so once")
    func trimRefused() throws {
        var messages: [String] = []
        let (dispatcher, _, session) = try start { messages.append($0) }
        session.journalLimit = 3
        try session.database.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON journalStart BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        for by in 1 ... 8 { try dispatcher.dispatch(Add(by: by)) }
        session.save()
        #expect(session.trimJournal() == 0)
        #expect(session.trimJournal() == 0)
        #expect(session.firstNumber == 1)
        #expect(try session.journal(1 ... 8).count == 8)
        #expect(messages.filter { $0.contains("not trimmed") }.count == 1)
    }
}
