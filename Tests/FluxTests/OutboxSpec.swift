import Testing
@testable import Flux

/// An outbox seen from its stores, in virtual time: committed actions are sent one at a time, in
/// order; a retry waits exponentially longer; a rejection dispatches its compensation; an undo takes
/// back what was not sent; a rolled-back or replayed action is never queued.
@Suite("Outbox")
struct OutboxSpec {
    /// A virtual clock: timers fire only when ``advance(_:)`` moves it.
    final class Clock {
        var now = 0.0
        var timers: [(due: Double, order: Int, body: () -> Void)] = []
        var order = 0

        var outboxClock: OutboxClock {
            OutboxClock(now: { self.now }, after: { [self] delay, body in
                order += 1
                let mine = order
                timers.append((now + delay, mine, body))
                return { [weak self] in self?.timers.removeAll { $0.order == mine } }
            }, isVirtual: true)
        }

        func advance(_ milliseconds: Double) {
            let target = now + milliseconds
            while let next = timers.min(by: { ($0.due, $0.order) < ($1.due, $1.order) }), next.due <= target {
                timers.removeAll { $0.order == next.order }
                now = next.due
                next.body()
            }
            now = target
        }
    }

    /// What the receiver saw, and what it answers next (ok once the script runs out).
    final class World {
        var seen: [(id: Int, title: String, attempt: Int, at: Double)] = []
        var answers: [OutboxReply] = []
        var held: OutboxReplier?
        var holds = false
    }

    struct Refused: Action {
        static let name = "todos.refused"
        let title: String
        let reason: String
    }

    func setUp() -> (Dispatcher, TodoStore, Clock, World, Outbox) {
        let dispatcher = Dispatcher()
        let todos = TodoStore(dispatcher: dispatcher)
        todos.on(Refused.self) { state, action in state.titles.removeAll { $0 == action.title } }
        let clock = Clock(), world = World()
        let definition = OutboxDefinition(name: "sync", actions: [AddTodo.name], retry: OutboxRetry(first: 1000, max: 8000), send: { entry, reply in
            let title = entry.payload.split(separator: "\"").dropFirst(3).first.map(String.init) ?? "?"
            world.seen.append((entry.id, title, entry.attempts, clock.now))
            if world.holds { world.held = reply; return }
            reply(world.answers.isEmpty ? .ok : world.answers.removeFirst())
        }, rejected: { entry, reason in
            let title = entry.payload.split(separator: "\"").dropFirst(3).first.map(String.init) ?? "?"
            try dispatcher.dispatch(Refused(title: title, reason: reason))
        })
        let outbox = OutboxCenter.of(dispatcher).declare(definition, clock: clock.outboxClock)
        return (dispatcher, todos, clock, world, outbox)
    }

    @Test("committed actions are sent in order, one in flight at a time, each once")
    func orderAndOneInFlight() throws {
        let (dispatcher, _, clock, world, outbox) = setUp()
        world.holds = true
        for title in ["a", "b", "c"] { try dispatcher.dispatch(AddTodo(title: title)) }
        #expect(world.seen.isEmpty, "nothing is sent inside the dispatch")
        clock.advance(0)
        #expect(world.seen.map(\.title) == ["a"])
        clock.advance(60_000)
        #expect(world.seen.map(\.title) == ["a"], "the next waits for the first's answer")
        #expect(outbox.inFlight == 1)
        world.holds = false
        world.held?(.ok)
        clock.advance(0)
        #expect(world.seen.map(\.title) == ["a", "b", "c"])
        #expect(world.seen.map(\.id) == [1, 2, 3])
        #expect(outbox.queue.isEmpty && outbox.sent == 3)
    }

    @Test("a retry waits from first_ms, doubling up to max_ms, with jitter in the upper half; the whole outbox waits")
    func backoff() throws {
        /// Two entries, the first answered `retry` six times; when each send came, and what was sent.
        func run() throws -> (times: [Double], titles: [String], attempts: [Int], left: Int) {
            let (dispatcher, _, clock, world, outbox) = setUp()
            world.answers = Array(repeating: .retry("503"), count: 6)
            try dispatcher.dispatch(AddTodo(title: "a"))
            try dispatcher.dispatch(AddTodo(title: "b"))
            clock.advance(0)
            clock.advance(100_000)
            return (world.seen.map(\.at), world.seen.map(\.title), world.seen.map(\.attempt), outbox.queue.count)
        }
        let first = try run()
        #expect(first.titles == ["a", "a", "a", "a", "a", "a", "a", "b"], "b waits behind a")
        #expect(first.attempts.prefix(7) == [1, 2, 3, 4, 5, 6, 7])
        let waits = zip(first.times.dropFirst(), first.times).map { $0 - $1 }
        for (index, full) in [1000.0, 2000, 4000, 8000, 8000, 8000].enumerated() {
            #expect(waits[index] >= full / 2 && waits[index] <= full, "wait \(index + 1): \(waits[index]) ms, of \(full)")
        }
        #expect(Set(waits.prefix(6)).count > 1, "jitter spreads the waits")
        #expect(first.left == 0)
        #expect(try run().times == first.times, "the same run waits the same: the jitter is deterministic under the virtual clock")
    }

    @Test("a send that throws counts as a retry, its error kept")
    func throwingSend() throws {
        let dispatcher = Dispatcher()
        _ = TodoStore(dispatcher: dispatcher)
        let clock = Clock()
        var calls = 0
        var reported: [String] = []
        let center = OutboxCenter.of(dispatcher)
        center.report = { reported.append($0) }
        let outbox = center.declare(OutboxDefinition(name: "sync", actions: [AddTodo.name], send: { _, reply in
            calls += 1
            if calls == 1 { throw TestFailure(description: "no route to host") }
            reply(.ok)
        }), clock: clock.outboxClock)
        try dispatcher.dispatch(AddTodo(title: "a"))
        clock.advance(0)
        #expect(outbox.queue.first?.lastError == "send failed: no route to host")
        #expect(reported.count == 1)
        clock.advance(1000)
        #expect(calls == 2 && outbox.queue.isEmpty)
    }

    @Test("a rejected entry leaves the outbox and its compensating action undoes it in the store")
    func rejectCompensates() throws {
        let (dispatcher, todos, clock, world, outbox) = setUp()
        world.answers = [.ok, .reject("title taken"), .ok]
        for title in ["a", "b", "c"] { try dispatcher.dispatch(AddTodo(title: title)) }
        #expect(todos.state.titles == ["a", "b", "c"])
        clock.advance(0)
        #expect(world.seen.map(\.title) == ["a", "b", "c"])
        #expect(todos.state.titles == ["a", "c"], "b, refused, is taken back")
        #expect(outbox.rejected == 1 && outbox.sent == 2 && outbox.queue.isEmpty)
        #expect(dispatcher.history.undoLabels.last == Refused.name, "the compensation is an action like any other")
    }

    @Test("undo of an action still queued takes its entry back; undo of one sent queues nothing")
    func undoRemoves() throws {
        let (dispatcher, _, clock, world, outbox) = setUp()
        try dispatcher.dispatch(AddTodo(title: "sent"))
        clock.advance(0)
        try dispatcher.dispatch(AddTodo(title: "kept"))
        try dispatcher.dispatch(AddTodo(title: "undone"))
        try dispatcher.undo()
        #expect(outbox.queue.map(\.id) == [2])
        try dispatcher.redo()
        #expect(outbox.queue.map(\.id) == [2], "a redo is local: it queues nothing")
        try dispatcher.undo()
        try dispatcher.undo()
        try dispatcher.undo()
        #expect(outbox.queue.isEmpty)
        clock.advance(0)
        #expect(world.seen.map(\.title) == ["sent"], "the undone and the one sent before are not sent (again)")
    }

    @Test("a rolled-back or refused action is never queued, nor a replayed one")
    func onlyCommitted() throws {
        let (dispatcher, _, clock, world, outbox) = setUp()
        #expect(throws: (any Error).self) {
            try dispatcher.group("fails") {
                try dispatcher.dispatch(AddTodo(title: "rolled back"))
                try dispatcher.dispatch(AddTodo(title: ""))
            }
        }
        #expect(throws: (any Error).self) { try dispatcher.dispatch(AddTodo(title: "")) }
        dispatcher.dropsFollowUps = true
        try dispatcher.dispatch(AddTodo(title: "replayed"))
        dispatcher.dropsFollowUps = false
        clock.advance(0)
        #expect(outbox.queue.isEmpty && world.seen.isEmpty)
    }

    @Test("pause holds the outbox, resume and retry send; drop forgets an entry unsent")
    func steering() throws {
        let (dispatcher, _, clock, world, outbox) = setUp()
        world.answers = [.retry("offline")]
        outbox.pause()
        try dispatcher.dispatch(AddTodo(title: "a"))
        try dispatcher.dispatch(AddTodo(title: "b"))
        clock.advance(10_000)
        #expect(world.seen.isEmpty)
        outbox.resume()
        clock.advance(0)
        #expect(world.seen.map(\.title) == ["a"] && outbox.nextTry != nil)
        #expect(outbox.retryNow())
        clock.advance(0)
        #expect(world.seen.map(\.title) == ["a", "a", "b"])
        try dispatcher.dispatch(AddTodo(title: "c"))
        outbox.pause()
        #expect(outbox.drop(3))
        #expect(!outbox.drop(3))
        outbox.resume()
        clock.advance(0)
        #expect(world.seen.map(\.title) == ["a", "a", "b"] && outbox.queue.isEmpty)
    }
}
