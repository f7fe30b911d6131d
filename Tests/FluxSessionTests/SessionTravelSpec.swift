import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// `:goto N` in a session: any entry of the journal, from the nearest snapshot, as one undo step.
extension SessionSpec {
    /// The counter's value right after entry `n` of a journal of `Add(by: 1)`, `Add(by: 2)`, …
    private func sum(_ n: Int) -> Int { n * (n + 1) / 2 }

    private func count(_ store: any StoreProtocol) -> Int { (store as! CounterStore).state.count }

    @Test("goto reaches any entry of a journal far longer than the undo history, as one step :undo takes back")
    func gotoBeyondHistory() throws {
        let (dispatcher, store, session) = try start()
        session.snapshotInterval = 50
        for by in 1 ... 300 { try dispatcher.dispatch(Add(by: by)) } // distinct actions: 300 entries
        session.save()
        let travel = try session.goTo(entry: 10)
        #expect(count(store) == sum(10))
        #expect(travel.snapshot == 0 && travel.replayed == 10 && travel.journalLength == 300)
        #expect(dispatcher.history.undoLabels.last == "goto 10")
        #expect(try session.goTo(entry: 273).replayed == 23) // from the snapshot after entry 250
        #expect(count(store) == sum(273))
        try dispatcher.undo()
        #expect(count(store) == sum(10))
        try dispatcher.undo()
        #expect(count(store) == sum(300))
        try dispatcher.redo()
        #expect(count(store) == sum(10))
        try session.goTo(entry: 0)
        #expect(count(store) == 0)
    }

    @Test("a subscriber hears a goto once, the state it reaches, not each action replayed to find it")
    func gotoHeardOnce() throws {
        let (dispatcher, store, session) = try start()
        session.snapshotInterval = 50
        for by in 1 ... 120 { try dispatcher.dispatch(Add(by: by)) }
        session.save()
        var heard: [Int] = []
        let subscription = (store as! CounterStore).subscribe { heard.append($0.count) }
        try session.goTo(entry: 73) // 23 actions replayed from the snapshot after entry 50
        try session.goTo(entry: 73) // already there: nothing changes, nothing is heard
        try dispatcher.undo()
        #expect(heard == [sum(120), sum(73), sum(120)])
        _ = subscription
    }

    @Test("goto out of reach — past the end, before a compaction's cut — names the reachable range and changes nothing")
    func gotoOutOfReach() throws {
        let (dispatcher, store, session) = try start()
        session.snapshotInterval = 50
        for by in 1 ... 300 { try dispatcher.dispatch(Add(by: by)) }
        let past = try #require(throws: SessionError.self) { try session.goTo(entry: 301) }
        #expect(past.description == "no entry 301 to go to: :goto reaches entries 0-300")
        _ = try session.compact(keeping: 30) // entries 271-300 kept
        let version = dispatcher.history.version
        let before = try #require(throws: SessionError.self) { try session.goTo(entry: 270) }
        #expect(before.description == "no entry 270 to go to: :goto reaches entries 271-300 (entries 1-270 were compacted away)")
        #expect(count(store) == sum(300) && dispatcher.history.version == version && session.journalLength == 300)
        // The first entry kept is still reachable: the snapshot before the cut stays.
        try session.goTo(entry: 271)
        #expect(count(store) == sum(271))
        #expect(try session.summary().journalRows == 31) // 30 kept and the goto; the rows before the cut are not listed
    }

    @Test("goto reaches entries on either side of undo and redo steps, and of an earlier goto")
    func gotoAcrossSteps() throws {
        let (dispatcher, store, session) = try start()
        session.snapshotInterval = 1_000
        try dispatcher.dispatch(Add(by: 1))  // 1: 1
        try dispatcher.dispatch(Add(by: 10)) // 2: 11
        try dispatcher.undo()                // 3: 1
        try dispatcher.dispatch(Add(by: 100)) // 4: 101
        try session.goTo(entry: 2)           // 5: 11
        try dispatcher.dispatch(Add(by: 5))  // 6: 16
        session.save()
        let expected = [0, 1, 11, 1, 101, 11, 16]
        for entry in (0 ... 6).reversed() {
            try session.goTo(entry: entry)
            #expect(count(store) == expected[entry], "entry \(entry)")
        }
    }

    @Test("an undo taking back a step from before the last snapshot: goto still reaches the entries after it")
    func gotoUndoPastSnapshot() throws {
        let (dispatcher, store, session) = try start()
        session.snapshotInterval = 2
        try dispatcher.dispatch(Add(by: 1))  // 1: 1
        try dispatcher.dispatch(Add(by: 10)) // 2: 11, a snapshot
        try dispatcher.undo()                // 3: 1, taking back entry 2's step
        try dispatcher.undo()                // 4: 0
        try dispatcher.dispatch(Add(by: 5))  // 5: 5
        for (entry, expected) in [(3, 1), (4, 0), (5, 5), (2, 11)] {
            try session.goTo(entry: entry)
            #expect(count(store) == expected, "entry \(entry)")
        }
    }

    @Test("a journal line that no longer replays stops the goto: every store and the history are as before")
    func gotoFailureChangesNothing() throws {
        let (dispatcher, store, session) = try start()
        try dispatcher.dispatch(Add(by: 1))
        try dispatcher.dispatch(Add(by: 2))
        session.save()
        // The journal holds a line no action reads now (the action's shape changed since).
        try session.database.write { db in try db.execute(sql: #"UPDATE journal SET line = '{"name":"counter.add","payload":{"by":"two"}}' WHERE seq = 2"#) }
        let labels = dispatcher.history.undoLabels
        let error = try #require(throws: SessionError.self) { try session.goTo(entry: 2) }
        #expect(error.description.hasPrefix("cannot go to entry 2: entry 2 no longer replays"))
        #expect(count(store) == 3 && dispatcher.history.undoLabels == labels && session.journalLength == 2)
    }

    @Test("export → replay gives the same states, whatever mix of actions, undo, redo and goto the journal holds")
    func journalReplaysGotos() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0 ..< 20 {
            let (dispatcher, store, session) = try start(fresh: true)
            session.snapshotInterval = Int.random(in: 1 ... 20, using: &generator)
            let recorded = ActionRecorderLines()
            SettledCommits.of(dispatcher).clock = { 0 }
            _ = ActionRecorder(recording: dispatcher) { recorded.lines.append($0) }
            for _ in 0 ..< 60 {
                switch Int.random(in: 0 ..< 10, using: &generator) {
                case 0: try dispatcher.undo()
                case 1: try dispatcher.redo()
                case 2: session.save()
                case 3: try session.goTo(entry: Int.random(in: 0 ... session.journalLength, using: &generator))
                default: try dispatcher.dispatch(Add(by: Int.random(in: 1 ... 9, using: &generator)))
                }
            }
            let lines = try session.journal(1 ... session.journalLength).map(\.line)
            for log in [lines, recorded.lines] {
                let fresh = Dispatcher(), copy = CounterStore(dispatcher: fresh)
                try ActionReplayer(dispatcher: fresh).replay(contentsOf: log.joined(separator: "\n"))
                #expect(copy.state == (store as! CounterStore).state, "round \(round)")
            }
            session.close()
        }
    }

    @Test("a snapshot is written in the same transaction as its journal rows: a save that fails writes neither")
    func snapshotWithItsRows() throws {
        let (dispatcher, store, session) = try start()
        session.snapshotInterval = 5
        try session.database.write { db in
            try db.execute(sql: "CREATE TRIGGER full BEFORE INSERT ON snapshot BEGIN SELECT RAISE(ABORT, 'disk full'); END")
        }
        for _ in 0 ..< 7 { try dispatcher.dispatch(Add(by: 1)) }
        #expect(!session.save())
        let saved = try session.database.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal")!, try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM snapshot")!)
        }
        #expect(saved.0 == 0 && saved.1 == 0)
        try session.database.write { db in try db.execute(sql: "DROP TRIGGER full") }
        #expect(session.save())
        #expect(try session.database.read { db in try Int.fetchAll(db, sql: "SELECT DISTINCT seq FROM snapshot ORDER BY seq") } == [0, 5])
        try session.goTo(entry: 6)
        #expect(count(store) == 6)
    }

    @Test("a session reopened goes on taking snapshots where it left off, and reaches entries of the earlier run")
    func gotoAfterRestart() throws {
        do {
            let (dispatcher, _, session) = try start()
            session.snapshotInterval = 10
            for by in 1 ... 25 { try dispatcher.dispatch(Add(by: by)) }
            session.close()
        }
        let (dispatcher, store, session) = try start()
        session.snapshotInterval = 10
        for by in 26 ... 40 { try dispatcher.dispatch(Add(by: by)) }
        #expect(try session.goTo(entry: 23).replayed == 3)
        #expect(count(store) == sum(23))
        #expect(try session.goTo(entry: 40).replayed == 0) // snapshots after entries 30 and 40: the count went on from the first run
        #expect(count(store) == sum(40))
    }
}

/// The lines an ``ActionRecorder`` wrote.
private final class ActionRecorderLines {
    var lines: [String] = []
}
