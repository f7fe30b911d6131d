import Testing
@testable import Flux

/// The stream of settled commits: what `flux.on` listeners, and anything else that must only hear what can
/// no longer roll back, read.
@Suite("Settled commits")
struct SettledCommitsSpec {
    final class Heard {
        var commits: [SettledCommit] = []
        var names: [String] { commits.map { "\(Self.name(of: $0))\($0.group.map { "@\($0.label)" } ?? "") \($0.origin.rawValue) \($0.changed.joined(separator: ","))" } }

        static func name(of commit: SettledCommit) -> String {
            switch commit.event {
            case let .action(action): action.name
            case let .step(step, label): "\(step.rawValue) \(label)"
            case let .states(label, states): "states \(label) " + states.map(\.store).joined(separator: ",")
            }
        }
    }

    func setUp() -> (Dispatcher, CounterStore, Heard) {
        let dispatcher = Dispatcher()
        let counter = CounterStore(dispatcher: dispatcher)
        _ = LedgerStore(dispatcher: dispatcher)
        let heard = Heard()
        SettledCommits.of(dispatcher).subscribe { heard.commits.append($0) }
        return (dispatcher, counter, heard)
    }

    @Test("an action is told once it committed, with the stores it changed; a refused or failed one never")
    func committedOnly() throws {
        let (dispatcher, _, heard) = setUp()
        try dispatcher.dispatch(Increment(by: 2))
        #expect(throws: (any Error).self) { try dispatcher.dispatch(Increment(by: -1)) }
        #expect(throws: (any Error).self) { try dispatcher.dispatch(Fail(reason: "no")) }
        #expect(heard.names == ["counter.increment direct counter,ledger"])
    }

    @Test("a group's actions are told when it commits, each once and in order; a rolled-back group's never")
    func groups() throws {
        let (dispatcher, counter, heard) = setUp()
        try dispatcher.group("two") {
            try dispatcher.dispatch(Increment(by: 1))
            #expect(heard.commits.isEmpty) // not settled while the group is open
            try dispatcher.dispatch(Increment(by: 2))
        }
        #expect(heard.names == ["counter.increment@two direct counter,ledger", "counter.increment@two direct counter,ledger"])
        #expect(throws: (any Error).self) {
            try dispatcher.group("undone") {
                try dispatcher.dispatch(Increment(by: 5))
                try dispatcher.dispatch(Increment(by: -1))
            }
        }
        #expect(heard.commits.count == 2)
        #expect(counter.state.count == 3)
    }

    @Test("where an action came from: an effect's, a follow-up, a replay; all-or-nothing work rolled back is never told")
    func origins() throws {
        let (dispatcher, counter, heard) = setUp()
        dispatcher.isEffect = true
        try dispatcher.dispatch(Increment(by: 1))
        dispatcher.isEffect = false
        let subscription = counter.subscribe { state in
            if state.count == 2 { try? dispatcher.dispatch(Increment(by: 10)) }
        }
        try dispatcher.dispatch(Increment(by: 1))
        subscription.cancel()
        let log = [#"{"name":"counter.increment","payload":{"by":1},"effect":true,"time":0}"#].joined(separator: "\n")
        try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log)
        #expect(throws: (any Error).self) {
            try dispatcher.allOrNothing { try dispatcher.dispatch(Increment(by: 1)); throw TestFailure(description: "rewind") }
        }
        #expect(heard.commits.map(\.origin) == [.effect, .direct, .followUp, .effect])
        #expect(heard.commits.map(\.isReplay) == [false, false, false, true], "a replay keeps the origin its log recorded")
    }

    @Test("undo and redo steps and settings of states are told in their places among the actions; a replay's once it ends")
    func stepsInPlace() throws {
        let (dispatcher, counter, heard) = setUp()
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.undo()
        try dispatcher.redo()
        try dispatcher.setStates([(counter, CounterState(count: 40))], label: "goto 7")
        #expect(heard.names == ["counter.increment direct counter,ledger", "undo counter.increment direct ", "redo counter.increment direct ",
                                "states goto 7 counter direct "])
        guard case let .states(_, states) = heard.commits[3].event else { Issue.record("not a setting of states"); return }
        #expect(states == [EncodedState(store: "counter", format: "json", state: #"{"count":40}"#)], "encoded once, for every reader")
        let log = [#"{"name":"counter.increment","payload":{"by":2}}"#, #"{"step":"undo"}"#].joined(separator: "\n")
        var during = -1
        let subscription = counter.subscribe { _ in if during < 0 { during = heard.commits.count } }
        try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log)
        subscription.cancel()
        #expect(during == 4, "nothing of the replay is told while it runs")
        #expect(heard.names.suffix(2) == ["counter.increment direct counter,ledger", "undo counter.increment direct "])
        #expect(heard.commits.suffix(2).map(\.isReplay) == [true, true])
    }

    @Test("a commit carries the time it committed at; a capturing subscriber sees the stores as each action of a group left them")
    func timeAndCapture() throws {
        let dispatcher = Dispatcher()
        let counter = CounterStore(dispatcher: dispatcher)
        let stream = SettledCommits.of(dispatcher)
        var now = 100.0
        stream.clock = { now }
        var told: [(time: Double, count: Int)] = []
        stream.subscribe(capturing: { _ in counter.state.count }) { commit, count in told.append((commit.time, count)) }
        try dispatcher.group("two") {
            try dispatcher.dispatch(Increment(by: 1))
            now = 101
            try dispatcher.dispatch(Increment(by: 2))
            now = 102
        }
        #expect(told.map(\.time) == [100, 101])
        #expect(told.map(\.count) == [1, 3], "captured as each committed, told when the group ended")
        #expect(throws: (any Error).self) {
            try dispatcher.group("undone") { try dispatcher.dispatch(Increment(by: 5)); try dispatcher.dispatch(Fail(reason: "no")) }
        }
        #expect(told.count == 2)
    }

    @Test("the recorder writes what the stream tells: a line per settled commit, none of a rolled-back group")
    func recorder() throws {
        let dispatcher = Dispatcher()
        _ = CounterStore(dispatcher: dispatcher)
        SettledCommits.of(dispatcher).clock = { 0 }
        var lines: [String] = []
        let recorder = ActionRecorder(recording: dispatcher) { lines.append($0) }
        try dispatcher.group("kept") {
            try dispatcher.dispatch(Increment(by: 1))
            #expect(lines.isEmpty, "not written before the group commits")
        }
        #expect(throws: (any Error).self) {
            try dispatcher.group("undone") { try dispatcher.dispatch(Increment(by: 5)); try dispatcher.dispatch(Fail(reason: "no")) }
        }
        try dispatcher.undo()
        recorder.stop()
        try dispatcher.dispatch(Increment(by: 9))
        #expect(lines == [#"{"name":"counter.increment","payload":{"by":1},"group":1,"label":"kept","time":0.0}"#, #"{"step":"undo","time":0.0}"#])
        #expect(recorder.count == 2 && !recorder.isRecording)
    }

    @Test("a reader told as commits happen hears each at once, whether it settled, and how many were withdrawn: in the end what settled")
    func asCommitted() throws {
        let (dispatcher, _, heard) = setUp()
        var told: [(name: String, settled: Bool)] = []
        var withdrawals: [Int] = []
        SettledCommits.of(dispatcher).subscribe(asCommitted: { commit, settled in
            told.append((Heard.name(of: commit), settled))
        }, withdrawn: { count in
            withdrawals.append(count)
            told.removeLast(count)
        })
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.group("two") {
            try dispatcher.dispatch(Increment(by: 2))
            #expect(told.count == 2 && heard.commits.count == 1, "told at once, before the group settles")
            try dispatcher.dispatch(Increment(by: 3))
        }
        #expect(throws: (any Error).self) {
            try dispatcher.group("undone") { try dispatcher.dispatch(Increment(by: 5)); try dispatcher.dispatch(Increment(by: -1)) }
        }
        #expect(throws: (any Error).self) {
            try dispatcher.allOrNothing {
                try dispatcher.dispatch(Increment(by: 6))
                try dispatcher.undo()
                throw TestFailure(description: "rewind")
            }
        }
        try dispatcher.allOrNothing {
            try dispatcher.dispatch(Increment(by: 7))
            _ = try? dispatcher.group("inner") { try dispatcher.dispatch(Increment(by: 8)); throw TestFailure(description: "no") }
            try dispatcher.dispatch(Increment(by: 9))
        }
        #expect(withdrawals == [1, 2, 1], "the failed group's action; the work's action and step; the inner group's action")
        #expect(told.map(\.name) == heard.commits.map(Heard.name(of:)), "in the end, the commits that settled, in their order")
        #expect(told.map(\.settled) == [true, false, false, false, false])
    }
}
