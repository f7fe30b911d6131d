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

    func start(_ wire: Wire) throws -> (Dispatcher, Session, Outbox) {
        let dispatcher = Dispatcher()
        _ = CounterStore(dispatcher: dispatcher)
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
}
