import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// A session's outbox: an entry is written with its action's journal row, in the same save, and is
/// there after a restart with the same id; one not saved is gone with its action.
@Suite("Session outbox")
struct SessionOutboxSpec {
    let folder = sessionFolder()
    let clock = TestClock()

    /// A dispatcher with a counter, its session attached, and an outbox "sync" of `counter.add` whose
    /// sends are kept in `sent` (answered `ok` when `answer` says so) and fire only when `fire` runs.
    final class Wire {
        var sent: [OutboxEntry] = []
        var timers: [() -> Void] = []
        var answer: OutboxReply? = .ok
        /// Runs the timers set, and those they set, for a few rounds (a retry's timer is left for later).
        func fire(rounds: Int = 5) {
            for _ in 0 ..< rounds {
                let due = timers
                timers = []
                for timer in due { timer() }
                if answer != .ok { return }
            }
        }
    }

    /// With `storeLate`, the counter is defined once the outbox reads its entries: the saved history
    /// comes back only then (a plugin's store).
    func start(_ wire: Wire, storeLate: Bool = false) throws -> (Dispatcher, Session, Outbox) {
        let dispatcher = Dispatcher()
        if !storeLate { _ = CounterStore(dispatcher: dispatcher) }
        let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher, clock: { [clock] in clock.now })
        session.restore()
        session.attach()
        let center = OutboxCenter.of(dispatcher)
        let outbox = center.declare(OutboxDefinition(name: "sync", actions: [Add.name], send: { entry, reply in
            wire.sent.append(entry)
            if let answer = wire.answer { reply(answer) }
        }), clock: OutboxClock(now: { 0 }, after: { _, body in
            wire.timers.append(body)
            return {}
        }, isVirtual: true))
        try center.use(session.outboxStorage())
        if storeLate { _ = CounterStore(dispatcher: dispatcher) }
        return (dispatcher, session, outbox)
    }

    func rows(_ session: Session) throws -> [String] {
        try session.database.read { db in
            guard try db.tableExists("outbox") else { return [] }
            return try Row.fetchAll(db, sql: "SELECT id, payload, attempts FROM outbox ORDER BY id").map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
        }
    }

    @Test("an entry is written with its action's journal row and sent only once both are saved")
    func sameTransaction() throws {
        let wire = Wire()
        let (dispatcher, session, outbox) = try start(wire)
        try dispatcher.dispatch(Add(by: 1))
        wire.fire()
        #expect(wire.sent.isEmpty && outbox.queue.isEmpty, "not sent before it is durable")
        #expect(try rows(session).isEmpty)
        session.save()
        #expect(try rows(session) == [#"1 {"by":1} 0"#])
        #expect(session.journalLength == 1)
        wire.fire()
        #expect(wire.sent.map(\.id) == [1])
        #expect(try rows(session).isEmpty, "an entry taken leaves the table")
    }

    @Test("after kill -9, a saved entry is sent again with its id and attempts; an unsaved one is gone with its action")
    func restart() throws {
        let wire = Wire()
        wire.answer = .retry("offline")
        do {
            let (dispatcher, session, _) = try start(wire)
            try dispatcher.dispatch(Add(by: 1))
            try dispatcher.dispatch(Add(by: 2))
            session.save()
            wire.fire()
            try dispatcher.dispatch(Add(by: 3)) // never saved: the process dies here
            session.journal.clear()
        }
        let again = Wire()
        let (_, session, outbox) = try start(again)
        #expect(session.journalLength == 2)
        #expect(outbox.queue.map(\.id) == [1, 2])
        #expect(outbox.queue.first?.attempts == 1 && outbox.queue.first?.lastError == "offline")
        again.fire()
        #expect(again.sent.map(\.id) == [1, 2] && again.sent.map(\.payload) == [#"{"by":1}"#, #"{"by":2}"#])
        #expect(try rows(session).isEmpty)
    }

    @Test("undo of a queued action takes its row away with the save that journals the undo")
    func undo() throws {
        let wire = Wire()
        wire.answer = nil
        let (dispatcher, session, outbox) = try start(wire)
        try dispatcher.dispatch(Add(by: 1))
        session.save()
        wire.fire() // entry 1 in flight
        try dispatcher.dispatch(Add(by: 2))
        try dispatcher.dispatch(Add(by: 3))
        session.save()
        try dispatcher.undo()
        try dispatcher.dispatch(Add(by: 4))
        try dispatcher.undo() // never saved, never sent
        #expect(outbox.queue.map(\.id) == [1, 2])
        session.save()
        #expect(try rows(session).map { $0.prefix(1) } == ["1", "2"])
    }

    func count(_ dispatcher: Dispatcher) -> Int? {
        (dispatcher.store(named: "counter") as? CounterStore)?.state.count
    }

    /// Adds 1 (sent and taken), then 2 and 3 (saved, not sent), and dies as `kill -9` would: nothing
    /// after the last save is kept.
    func queueThenDie() throws {
        let wire = Wire()
        let (dispatcher, session, outbox) = try start(wire)
        try dispatcher.dispatch(Add(by: 1))
        session.save()
        wire.fire()
        try dispatcher.dispatch(Add(by: 2))
        session.save()
        try dispatcher.dispatch(Add(by: 3))
        session.save()
        #expect(wire.sent.map(\.id) == [1] && outbox.queue.map(\.id) == [2, 3])
        session.journal.clear()
    }

    @Test("after kill -9, undoing a restored step takes its queued entry back, as before the restart; a redo queues nothing",
          arguments: [false, true])
    func undoAfterRestart(storeLate: Bool) throws {
        try queueThenDie()
        let again = Wire()
        do {
            let (dispatcher, session, outbox) = try start(again, storeLate: storeLate)
            #expect(count(dispatcher) == 6 && outbox.queue.map(\.id) == [2, 3])
            try dispatcher.undo()
            #expect(count(dispatcher) == 3 && outbox.queue.map(\.id) == [2], "the entry of the step undone, 3, is taken back")
            try dispatcher.undo()
            #expect(outbox.queue.isEmpty)
            try dispatcher.undo()
            #expect(count(dispatcher) == 0 && outbox.queue.isEmpty, "entry 1 was sent before the restart: nothing to take back")
            try dispatcher.redo()
            #expect(count(dispatcher) == 1 && outbox.queue.isEmpty, "a redo is local: it queues nothing")
            session.save()
            #expect(try rows(session).isEmpty, "the undone entries left the table with the save of the undo")
            again.fire()
            #expect(again.sent.isEmpty, "nothing undone is ever sent")
            session.journal.clear()
        }
        let third = Wire()
        let (dispatcher, _, outbox) = try start(third, storeLate: storeLate)
        #expect(count(dispatcher) == 1 && outbox.queue.isEmpty)
        third.fire()
        #expect(third.sent.isEmpty)
    }

    @Test("an undo after a restart that dies before its save takes nothing back: the step and its entry come back together")
    func undoLostWithItsLine() throws {
        try queueThenDie()
        do {
            let (dispatcher, session, outbox) = try start(Wire())
            try dispatcher.undo()
            #expect(outbox.queue.map(\.id) == [2])
            session.journal.clear() // killed before the line's save
        }
        let wire = Wire()
        let (dispatcher, session, outbox) = try start(wire)
        #expect(count(dispatcher) == 6 && outbox.queue.map(\.id) == [2, 3])
        try dispatcher.undo() // and the link holds through a second restart
        #expect(outbox.queue.map(\.id) == [2])
        session.save()
        wire.fire()
        #expect(wire.sent.map(\.id) == [2] && count(dispatcher) == 3)
        #expect(try rows(session).isEmpty)
    }

    @Test("after a restart, an entry in flight when its step is undone stays: it may have arrived")
    func inFlightAfterRestart() throws {
        try queueThenDie()
        let wire = Wire()
        wire.answer = nil
        let (dispatcher, session, outbox) = try start(wire)
        try dispatcher.undo()
        wire.fire() // entry 2 in flight
        #expect(outbox.inFlight == 2)
        try dispatcher.undo()
        #expect(outbox.queue.map(\.id) == [2] && count(dispatcher) == 1)
        session.save()
        #expect(try rows(session).map { $0.prefix(1) } == ["2"])
    }

    @Test("a session whose outbox table was made without step links reads its entries and links new ones")
    func oldTable() throws {
        do {
            let dispatcher = Dispatcher()
            _ = CounterStore(dispatcher: dispatcher)
            let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher, clock: { [clock] in clock.now })
            session.attach()
            try session.database.write { db in
                try db.execute(sql: """
                    CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, outbox TEXT NOT NULL, action TEXT NOT NULL,
                                         payload TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, lastError TEXT);
                    INSERT INTO outbox (outbox, action, payload) VALUES ('sync', 'counter.add', '{"by":5}')
                    """)
            }
            session.close()
        }
        do {
            let (dispatcher, session, outbox) = try start(Wire())
            #expect(outbox.queue.map(\.id) == [1])
            try dispatcher.dispatch(Add(by: 1))
            session.save()
            #expect(outbox.queue.map(\.id) == [1, 2])
            session.journal.clear()
        }
        let (dispatcher, session, outbox) = try start(Wire())
        try dispatcher.undo()
        #expect(outbox.queue.map(\.id) == [1], "the old entry has no step: no undo takes it back")
        session.save()
        #expect(try rows(session).map { $0.prefix(1) } == ["1"])
    }
}
