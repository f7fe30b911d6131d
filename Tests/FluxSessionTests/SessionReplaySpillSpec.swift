import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// A replay of a long log in a session: its journal rows go to a side table as it runs (memory flat in
/// the log's length) and join the journal with the save after it, numbered as if they had stayed in
/// memory; a replay that fails leaves nothing of them, nor does a crash before that save.
@Suite("A long replay's journal rows spill to disk")
struct SessionReplaySpillSpec {
    let folder = sessionFolder()
    let clock = TestClock()
    /// More runs than the journal keeps in memory during a replay: several spills.
    static let length = SessionJournalSpill.threshold * 2 + 500

    func start() throws -> (Dispatcher, CounterStore, Session) {
        try openCounterSession(in: folder, clock: clock)
    }

    /// A log of `length` actions, no two in a row alike (each a run of its own), and the count they make.
    static func log() -> (text: String, total: Int) {
        var lines: [String] = [], total = 0
        for n in 1 ... length {
            let by = n % 7 + 1
            total += by
            lines.append(#"{"name":"counter.add","payload":{"by":\#(by)}}"#)
        }
        return (lines.joined(separator: "\n"), total)
    }

    func spilledRows(_ session: Session) throws -> Int {
        try session.database.read { db in
            try db.tableExists("journalSpill") ? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journalSpill") ?? 0 : 0
        }
    }

    @Test("the rows of a replay kept join the journal with the next save, in order; a restart and :goto find them")
    func kept() throws {
        let (log, total) = Self.log()
        do {
            let (dispatcher, store, session) = try start()
            try dispatcher.dispatch(Add(by: 1000))
            session.save()
            #expect(try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log) == Self.length)
            #expect(try spilledRows(session) > 0, "the replay's runs went to disk as it ran")
            #expect(session.journal.runs.count < SessionJournalSpill.threshold)
            #expect(session.journalLength == 1 + Self.length)
            try dispatcher.dispatch(Add(by: 1))
            session.save()
            #expect(try spilledRows(session) == 0)
            #expect(store.state.count == 1000 + total + 1)
        }
        let (_, store, session) = try start()
        #expect(store.state.count == 1000 + total + 1)
        #expect(session.journalLength == Self.length + 2)
        let listed = try session.journal(1 ... session.journalLength)
        #expect(listed.map(\.number) == Array(1 ... Self.length + 2))
        #expect(listed[1].line.contains(#""by":2"#) && listed[Self.length].line.contains(#""by":\#((Self.length) % 7 + 1)"#))
        // A snapshot taken during the replay is numbered where it was taken: a travel into it lands right.
        let middle = 1 + Self.length / 2
        _ = try session.goTo(entry: middle)
        let expected = 1000 + (1 ... Self.length / 2).reduce(0) { $0 + $1 % 7 + 1 }
        #expect(store.state.count == expected)
    }

    @Test("a replay that fails part-way leaves no row of it, in memory or on disk")
    func rolledBack() throws {
        do {
            let (dispatcher, store, session) = try start()
            try dispatcher.dispatch(Add(by: 5))
            session.save()
            // Fails in a store near the end, after the spills.
            let refuser = Refuser(after: Self.length - 10, dispatcher: dispatcher)
            let (log, _) = Self.log()
            #expect(throws: ReplayError.self) { try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log) }
            #expect(store.state.count == 5 && refuser.state == 0)
            #expect(try spilledRows(session) == 0)
            #expect(session.journalLength == 1)
            session.save()
        }
        let (_, again, reopened) = try start()
        #expect(again.state.count == 5 && reopened.journalLength == 1)
    }

    @Test("rows spilled by a replay the process died in are never read, and the next replay starts clean")
    func crash() throws {
        let (log, total) = Self.log()
        do {
            let (dispatcher, _, session) = try start()
            session.save()
            try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log)
            #expect(try spilledRows(session) > 0)
            session.journal.clear() // killed before the save
        }
        let (dispatcher, store, session) = try start()
        #expect(store.state.count == 0 && session.journalLength == 0)
        try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log)
        session.save()
        #expect(store.state.count == total && session.journalLength == Self.length)
        #expect(try session.journal(1 ... session.journalLength).count == Self.length)
    }
}

/// A store that refuses the `after`th `counter.add` it sees and takes the others.
private final class Refuser: Store<Int> {
    init(after: Int, dispatcher: Dispatcher) {
        super.init(name: "refuser", state: 0, dispatcher: dispatcher)
        on(Add.self) { state, _ in
            state += 1
            if state == after { throw RefusedError() }
        }
    }
}

private struct RefusedError: Error {}
