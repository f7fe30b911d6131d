import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

@Suite("Sessions")
struct SessionSpec {
    let folder = sessionFolder()
    let clock = TestClock()
    var reports: [String] = []

    /// A dispatcher with a counter, its session opened, restored and attached.
    func start(fresh: Bool = false, reshaped: Bool = false, report: @escaping (String) -> Void = { _ in })
        throws -> (Dispatcher, any StoreProtocol, Session) {
        let dispatcher = Dispatcher()
        let store: any StoreProtocol = reshaped ? ReshapedCounterStore(dispatcher: dispatcher) : CounterStore(dispatcher: dispatcher)
        let session = try Session.open(name: "work", fresh: fresh, directory: folder, dispatcher: dispatcher,
                                       report: report, clock: { [clock] in clock.now })
        session.restore()
        session.attach()
        return (dispatcher, store, session)
    }

    @Test("a restarted session has every store's state and the undo history; undo and redo still work")
    func restart() throws {
        do {
            let (dispatcher, _, session) = try start()
            try dispatcher.dispatch(Add(by: 2))
            try dispatcher.group("pair") {
                try dispatcher.dispatch(Add(by: 10))
                try dispatcher.dispatch(Add(by: 20))
            }
            try dispatcher.dispatch(Add(by: 100))
            try dispatcher.undo()
            session.save()
        }
        let (dispatcher, store, _) = try start()
        #expect((store as! CounterStore).state.count == 32)
        #expect(dispatcher.history.undoLabels == ["counter.add", "pair"])
        #expect(dispatcher.history.redoLabels == ["counter.add"])
        try dispatcher.redo()
        #expect((store as! CounterStore).state.count == 132)
        try dispatcher.undo()
        try dispatcher.undo()
        #expect((store as! CounterStore).state.count == 2)
    }

    @Test("what is not saved is not there after a restart; a save makes it durable")
    func unsaved() throws {
        do {
            let (dispatcher, _, session) = try start()
            try dispatcher.dispatch(Add(by: 1))
            session.save()
            try dispatcher.dispatch(Add(by: 5)) // never saved: the process "dies" here
            session.journal.clear()
        }
        let (_, store, session) = try start()
        #expect((store as! CounterStore).state.count == 1)
        #expect(session.journalLength == 1)
    }

    @Test("within a long run, actions are saved at the first one 100 ms after the last save")
    func savesEvery100ms() throws {
        let (dispatcher, _, session) = try start()
        try dispatcher.dispatch(Add(by: 1))
        clock.now += 0.05
        try dispatcher.dispatch(Add(by: 1))
        #expect(try session.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM journal") } == 0)
        clock.now += 0.06
        try dispatcher.dispatch(Add(by: 1))
        #expect(try session.database.read { try Int.fetchOne($0, sql: "SELECT SUM(count) FROM journal") } == 3)
    }

    @Test("a run of identical actions is one row; the journal lists and exports each action")
    func runs() throws {
        let (dispatcher, _, session) = try start()
        for _ in 0 ..< 1_000 { try dispatcher.dispatch(Add(by: 1)) }
        try dispatcher.dispatch(Add(by: 2))
        try dispatcher.undo()
        let summary = try session.summary()
        #expect(summary.journalLength == 1_002)
        #expect(summary.journalRows == 3)
        let middle = try session.journal(999 ... 1_002)
        #expect(middle.map(\.number) == [999, 1_000, 1_001, 1_002])
        #expect(middle.map { $0.line.hasPrefix(#"{"name":"counter.add","payload":{"by":1}"#) } == [true, true, false, false])
        #expect(middle[3].line.hasPrefix(#"{"step":"undo""#))
        #expect(try session.journal(1_000 ... 5_000).count == 3)
    }

    @Test("a saved state that no longer decodes: that store starts afresh with a message naming it, the old data kept")
    func changedShape() throws {
        do {
            let (dispatcher, _, session) = try start()
            try dispatcher.dispatch(Add(by: 7))
            session.save()
        }
        var messages: [String] = []
        let (dispatcher, store, session) = try start(reshaped: true) { messages.append($0) }
        #expect((store as! ReshapedCounterStore).state == RenamedState())
        #expect(messages.contains { $0.contains("the saved state of store 'counter' no longer decodes") && $0.contains("initial state") })
        #expect(dispatcher.history.undoLabels.isEmpty)
        try dispatcher.dispatch(Add(by: 1))
        session.save()
        let kept = try session.database.read { try String.fetchOne($0, sql: "SELECT state FROM staleState WHERE store = 'counter'") }
        #expect(kept == #"{"count":7}"#)
    }

    @Test("--fresh starts empty and keeps the old database beside the new one")
    func fresh() throws {
        do {
            let (dispatcher, _, session) = try start()
            try dispatcher.dispatch(Add(by: 3))
            session.save()
        }
        let (_, store, session) = try start(fresh: true)
        #expect((store as! CounterStore).state.count == 0)
        #expect(session.journalLength == 0)
        let aside = try #require(session.movedAside)
        #expect(aside.hasPrefix(folder.appendingPathComponent("work.").path) && aside.hasSuffix(".sqlite"))
        let old = try DatabaseQueue(path: aside)
        #expect(try old.read { try String.fetchOne($0, sql: "SELECT state FROM state") } == #"{"count":3}"#)
    }

    @Test("what a failed atomic unit journalled is forgotten; the journal goes on after it")
    func atomically() throws {
        let (dispatcher, _, session) = try start()
        try dispatcher.dispatch(Add(by: 1))
        #expect(throws: TestError.self) {
            try dispatcher.allOrNothing {
                try dispatcher.dispatch(Add(by: 1))
                try dispatcher.dispatch(Add(by: 5))
                throw TestError()
            }
        }
        try dispatcher.dispatch(Add(by: 9))
        let lines = try session.journal(1 ... 10).map(\.line)
        #expect(lines.count == 2)
        #expect(lines.last?.contains(#""by":9"#) == true)
    }

    @Test("a replayed follow-up is journalled as a follow-up, so that replaying the journal does not apply it twice")
    func replayedFollowUps() throws {
        let (dispatcher, store, session) = try start()
        let log = #"""
            {"name":"counter.add","payload":{"by":1}}
            {"name":"counter.add","payload":{"by":10},"followUp":true}
            """#
        try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log)
        let lines = try session.journal(1 ... 2).map(\.line)
        #expect(lines.map { $0.contains(#""followUp":true"#) } == [false, true])
        #expect((store as! CounterStore).state.count == 11)
        // The journal replays into a store whose subscriber dispatches the follow-up itself: once, not twice.
        let again = Dispatcher()
        let counter = CounterStore(dispatcher: again)
        let subscription = counter.subscribe { state in
            if state.count == 1 { try? again.dispatch(Add(by: 10)) }
        }
        defer { subscription.cancel() }
        try ActionReplayer(dispatcher: again).replay(contentsOf: lines.joined(separator: "\n"))
        #expect(counter.state.count == 11)
    }

    @Test("a session open in one place cannot be opened in another until it is closed")
    func oneOwner() throws {
        var first: Session? = try Session.open(name: "held", directory: folder, dispatcher: Dispatcher())
        #expect(throws: SessionError.self) { try Session.open(name: "held", directory: folder, dispatcher: Dispatcher()) }
        #expect(first != nil)
        first = nil
        #expect(try Session.open(name: "held", directory: folder, dispatcher: Dispatcher()).name == "held")
    }

    @Test("a session name is a plain file name")
    func names() {
        for name in ["", "../x", ".hidden", "a/b", "a b"] {
            #expect(throws: SessionError.self) {
                try Session.open(name: name, directory: folder, dispatcher: Dispatcher())
            }
        }
    }

    @Test("sessions live in $XDG_STATE_HOME/fluxsh/sessions, else ~/.local/state/fluxsh/sessions")
    func paths() {
        #expect(SessionPaths.directory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/fluxsh/sessions")
        #expect(SessionPaths.directory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]).path == "/h/.local/state/fluxsh/sessions")
        #expect(SessionPaths.directory(environment: ["HOME": "/h"]).path == "/h/.local/state/fluxsh/sessions")
    }
}

struct TestError: Error {}
