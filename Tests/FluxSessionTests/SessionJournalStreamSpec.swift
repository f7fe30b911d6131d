import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// The journal reads the dispatcher's one stream of settled commits, as each commit happens: it ends
/// up with the very commits `:record` writes, in their order — whatever rolled back, inside a replay or
/// not, taken back by the stream's word, rows spilled to disk included.
@Suite("The journal reads the stream of settled commits")
struct SessionJournalStreamSpec {
    let folder = sessionFolder()
    let clock = TestClock()

    func start() throws -> (Dispatcher, CounterStore, Session) {
        try openCounterSession(in: folder, clock: clock)
    }

    /// Runs `body` as a replay does: all or nothing, its commits marked as a replay's.
    func replaying(_ dispatcher: Dispatcher, _ body: () throws -> Void) throws {
        try dispatcher.allOrNothing {
            dispatcher.dropsFollowUps = true
            defer { dispatcher.dropsFollowUps = false }
            try body()
        }
    }

    func journalLines(_ session: Session) throws -> [String] {
        session.save()
        return session.journalLength == 0 ? [] : try session.journal(1 ... session.journalLength).map(\.line)
    }

    @Test("the journal's lines are the recording's: groups, a rolled-back group inside a replay, a failed replay, steps, states")
    func sameAsRecording() throws {
        let (dispatcher, store, session) = try start()
        var recorded: [String] = []
        let recorder = ActionRecorder(recording: dispatcher) { recorded.append($0) }
        try dispatcher.dispatch(Add(by: 1))
        try dispatcher.group("pair") {
            try dispatcher.dispatch(Add(by: 2))
            try dispatcher.dispatch(Add(by: 3))
        }
        #expect(throws: RefusedError.self) {
            try dispatcher.group("undone") { try dispatcher.dispatch(Add(by: 4)); throw RefusedError() }
        }
        try dispatcher.undo()
        try dispatcher.redo()
        try dispatcher.setStates([(store, CounterState(count: 40))], label: "goto 3")
        try replaying(dispatcher) {
            try dispatcher.dispatch(Add(by: 5))
            _ = try? dispatcher.group("inner") {
                try dispatcher.dispatch(Add(by: 6))
                try dispatcher.dispatch(Add(by: 7))
                throw RefusedError()
            }
            try dispatcher.dispatch(Add(by: 8))
        }
        #expect(throws: RefusedError.self) {
            try replaying(dispatcher) {
                try dispatcher.dispatch(Add(by: 9))
                try dispatcher.undo()
                throw RefusedError()
            }
        }
        try dispatcher.dispatch(Add(by: 8))
        recorder.stop()
        #expect(store.state.count == 40 + 5 + 8 + 8)
        #expect(recorded.count == 9)
        #expect(try journalLines(session) == recorded)
    }

    @Test("a group rolled back inside a long replay takes its entries off the rows spilled; a restart finds the rest")
    func withdrawnFromSpill() throws {
        let runs = SessionJournalSpill.threshold
        var expected = 0, recorded: [String] = []
        do {
            let (dispatcher, store, session) = try start()
            let recorder = ActionRecorder(recording: dispatcher) { recorded.append($0) }
            try replaying(dispatcher) {
                for n in 1 ... runs { try dispatcher.dispatch(Add(by: n % 7 + 1)) } // no two in a row alike
                _ = try? dispatcher.group("long") {
                    for n in 1 ... 2 * runs { try dispatcher.dispatch(Add(by: n % 7 + 1)) }
                    throw RefusedError()
                }
                for n in 1 ... 10 { try dispatcher.dispatch(Add(by: n % 7 + 1)) }
            }
            recorder.stop()
            expected = store.state.count
            #expect(session.journal.spilledCount > 0, "the group's runs went to disk before it rolled back")
            #expect(session.journalLength == runs + 10)
            #expect(try journalLines(session) == recorded)
            #expect(recorded.count == runs + 10)
            session.close()
        }
        let (_, store, session) = try start()
        #expect(store.state.count == expected && session.journalLength == runs + 10)
        #expect(try session.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journalSpill") } == 0)
    }

    @Test("a long replay that fails leaves no journal row, in memory or spilled; a journal set aside hears nothing")
    func failedReplay() throws {
        let (dispatcher, _, session) = try start()
        try dispatcher.dispatch(Add(by: 1))
        #expect(throws: RefusedError.self) {
            try replaying(dispatcher) {
                for n in 1 ... 2 * SessionJournalSpill.threshold { try dispatcher.dispatch(Add(by: n % 7 + 1)) }
                throw RefusedError()
            }
        }
        // The action before it may have been spilled with the replay's first runs: it stays, the rest goes.
        #expect(session.journalLength == 1)
        session.save()
        #expect(try session.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journalSpill") } == 0)
        #expect(session.journalLength == 1)
        session.isJournalling = false
        try dispatcher.dispatch(Add(by: 2))
        session.isJournalling = true
        try dispatcher.dispatch(Add(by: 3))
        #expect(try journalLines(session).map { $0.contains(#""by":3"#) } == [false, true])
    }
}

private struct RefusedError: Error {}
