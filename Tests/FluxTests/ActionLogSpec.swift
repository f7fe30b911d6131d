import Testing
@testable import Flux

@Suite("Action log")
struct ActionLogSpec {
    /// Three stores on one dispatcher, with a recorder attached.
    final class World {
        let dispatcher = Dispatcher(historyLimit: 1_000)
        let counter: CounterStore
        let todos: TodoStore
        let ledger: LedgerStore
        var lines: [String] = []

        init(recording: Bool) {
            counter = CounterStore(dispatcher: dispatcher)
            todos = TodoStore(dispatcher: dispatcher)
            ledger = LedgerStore(dispatcher: dispatcher)
            if recording {
                SettledCommits.of(dispatcher).clock = { 0 }
                _ = ActionRecorder(recording: dispatcher) { [unowned self] in self.lines.append($0) }
            }
        }

        var snapshot: String {
            "\(counter.state) \(todos.state) \(ledger.state)"
        }
    }

    @Test("recording 1,000 random actions, undos, redos and groups, then replaying into fresh stores → identical states")
    func recordReplay() throws {
        var rng = SplitMix64(seed: 42)
        let original = World(recording: true)
        let words = ["milk", "eggs", "tea", "bread", "jam"]
        for _ in 0..<1_000 {
            switch rng.next() % 9 {
            case 0, 1, 2: try? original.dispatcher.dispatch(Increment(by: Int(rng.next() % 7) - 1))
            case 3, 4: try? original.dispatcher.dispatch(AddTodo(title: words[Int(rng.next() % 5)]))
            case 5: try? original.dispatcher.dispatch(RemoveTodo(title: words[Int(rng.next() % 5)]))
            case 6: try original.dispatcher.undo()
            case 7: try original.dispatcher.redo()
            default:
                try? original.dispatcher.group("pair") {
                    try original.dispatcher.dispatch(Increment(by: 1))
                    try original.dispatcher.dispatch(AddTodo(title: words[Int(rng.next() % 5)]))
                }
            }
        }
        #expect(original.lines.count > 700)
        let replica = World(recording: false)
        let applied = try ActionReplayer(dispatcher: replica.dispatcher).replay(contentsOf: original.lines.joined(separator: "\n"))
        #expect(applied == original.lines.count)
        #expect(replica.snapshot == original.snapshot)
        #expect(replica.dispatcher.history.undoLabels == original.dispatcher.history.undoLabels)
    }

    @Test("a group that fails is rolled back and leaves no line; the log still replays to the same states")
    func failedGroupLeavesNoLine() throws {
        let world = World(recording: true)
        try world.dispatcher.dispatch(Increment(by: 1))
        #expect(throws: DispatcherError.self) {
            try world.dispatcher.group("doomed") {
                try world.dispatcher.dispatch(Increment(by: 5))
                try world.dispatcher.dispatch(AddTodo(title: "milk"))
                try world.dispatcher.dispatch(AddTodo(title: ""))
            }
        }
        try world.dispatcher.group("kept") { try world.dispatcher.dispatch(AddTodo(title: "tea")) }
        #expect(world.lines.count == 2)
        #expect(!world.lines.contains { $0.contains("milk") })
        let replica = World(recording: false)
        try ActionReplayer(dispatcher: replica.dispatcher).replay(contentsOf: world.lines.joined(separator: "\n"))
        #expect(replica.snapshot == world.snapshot)
    }

    @Test("a replay that fails while recording leaves nothing of it in the recording")
    func failedReplayLeavesNoLine() throws {
        let world = World(recording: true)
        try world.dispatcher.dispatch(Increment(by: 1))
        let log = #"""
            {"name":"todos.add","payload":{"title":"milk"}}
            {"name":"todos.add","payload":{"title":""}}
            """#
        #expect(throws: ReplayError.self) { try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: log) }
        try world.dispatcher.dispatch(Increment(by: 2))
        #expect(world.lines.count == 2)
        #expect(!world.lines.contains { $0.contains("milk") })
    }

    @Test("a line holds name, payload, time and group")
    func lineFormat() throws {
        let world = World(recording: true)
        try world.dispatcher.group("Shopping") { try world.dispatcher.dispatch(AddTodo(title: "milk")) }
        try world.dispatcher.undo()
        #expect(world.lines == [
            #"{"name":"todos.add","payload":{"title":"milk"},"group":1,"label":"Shopping","time":0.0}"#,
            #"{"step":"undo","time":0.0}"#,
        ])
    }

    @Test("a malformed line → its line number, and nothing of the log is applied")
    func malformedLine() throws {
        let world = World(recording: false)
        let log = """
        {"name":"counter.increment","payload":{"by":2}}
        {"name":"todos.add","payload":{"title":"a"}}
        {"name":"todos.add","payload":{"title":
        {"name":"counter.increment","payload":{"by":5}}
        """
        #expect {
            try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: log)
        } throws: { error in
            (error as? ReplayError)?.line == 3
        }
        #expect(world.counter.state.count == 0)
        #expect(world.todos.state.titles.isEmpty)
    }

    @Test("a dispatch that fails midway → its line number, and every store and the undo history are as before the replay")
    func failingStep() throws {
        let world = World(recording: false)
        try world.dispatcher.dispatch(AddTodo(title: "kept"))
        let heard = Recorder(world.todos)
        let log = """
        {"name":"todos.add","payload":{"title":"a"}}
        {"name":"counter.increment","payload":{"by":3}}
        {"step":"undo"}
        {"name":"todos.remove","payload":{"title":"x"}}
        {"name":"todos.add","payload":{"title":"b"}}
        """
        #expect(throws: ReplayError(line: 4, message: "store 'todos' failed on 'todos.remove': no todo 'x'")) {
            try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: log)
        }
        #expect(world.todos.state.titles == ["kept"])
        #expect(world.counter.state.count == 0)
        #expect(world.dispatcher.history.undoLabels == ["todos.add"])
        #expect(world.dispatcher.history.redoLabels.isEmpty)
        #expect(heard.states.last == TodoState(titles: ["kept"]))
    }

    @Test("an action named flux.undo is an action, never an undo step")
    func actionNamedLikeAStep() throws {
        let original = World(recording: true)
        let named = NamedLikeUndoStore(dispatcher: original.dispatcher)
        try original.dispatcher.dispatch(Increment(by: 2))
        try original.dispatcher.dispatch(NamedLikeUndo())
        try original.dispatcher.undo()
        #expect(original.lines[1] == #"{"name":"flux.undo","payload":{},"time":0.0}"#)
        let replica = World(recording: false)
        let replicaNamed = NamedLikeUndoStore(dispatcher: replica.dispatcher)
        try ActionReplayer(dispatcher: replica.dispatcher).replay(contentsOf: original.lines.joined(separator: "\n"))
        #expect(replica.counter.state.count == 2)
        #expect(replicaNamed.state == named.state)
        #expect(replica.dispatcher.history.undoLabels == ["counter.increment"])
    }

    @Test("CRLF line endings and a missing final newline are accepted")
    func crlf() throws {
        let world = World(recording: false)
        let log = "{\"name\":\"todos.add\",\"payload\":{\"title\":\"a\"}}\r\n\r\n{\"step\":\"undo\"}\r\n{\"step\":\"redo\"}"
        #expect(try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: log) == 3)
        #expect(world.todos.state.titles == ["a"])
        #expect(throws: ReplayError(line: 2, message: "not a log entry: 'step' must be \"undo\" or \"redo\", got \"jump\"")) {
            try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: "{\"step\":\"undo\"}\r\n{\"step\":\"jump\"}\r\n")
        }
    }

    @Test("a follow-up a subscriber dispatched is recorded as one and replayed once, in its place")
    func followUps() throws {
        func world() -> (World, StoreSubscription) {
            let world = World(recording: true)
            // Every todo added counts one, through a follow-up.
            let subscription = world.todos.subscribe { [unowned world] state in
                if !state.titles.isEmpty { try? world.dispatcher.dispatch(Increment(by: 1)) }
            }
            return (world, subscription)
        }
        let (original, kept) = world()
        try original.dispatcher.dispatch(AddTodo(title: "a"))
        try original.dispatcher.group("two") {
            try original.dispatcher.dispatch(AddTodo(title: "b"))
            try original.dispatcher.dispatch(AddTodo(title: "c"))
        }
        try original.dispatcher.undo()
        #expect(original.counter.state.count == 2) // 3 follow-ups, the group undone, and one more as the undo is heard
        #expect(original.lines.filter { $0.contains(#""followUp":true"#) }.count == 4)
        let (replica, alsoKept) = world()
        try ActionReplayer(dispatcher: replica.dispatcher).replay(contentsOf: original.lines.joined(separator: "\n"))
        #expect(replica.snapshot == original.snapshot)
        #expect(replica.dispatcher.history.undoLabels == original.dispatcher.history.undoLabels)
        #expect(replica.dispatcher.history.redoLabels == original.dispatcher.history.redoLabels)
        _ = (kept, alsoKept)
    }

    @Test("an unknown action or a bad payload in a log → the line number and the field")
    func badEntries() throws {
        let world = World(recording: false)
        let replayer = ActionReplayer(dispatcher: world.dispatcher)
        #expect(throws: ReplayError(line: 2, message: "unknown action 'todos.explode' (:actions lists them)")) {
            try replayer.replay(contentsOf: "\n{\"name\":\"todos.explode\"}")
        }
        #expect(throws: ReplayError(line: 1, message: "todos.add: field 'title': expected a string, got nil")) {
            try replayer.replay(contentsOf: #"{"name":"todos.add","payload":{"title":null}}"#)
        }
        #expect(throws: ReplayError(line: 1, message: "store 'todos' failed on 'todos.remove': no todo 'x'")) {
            try replayer.replay(contentsOf: #"{"name":"todos.remove","payload":{"title":"x"}}"#)
        }
        #expect(world.todos.state.titles.isEmpty)
    }
}

/// An action whose name is the one old logs gave undo steps.
struct NamedLikeUndo: Action {
    static let name = "flux.undo"
}

final class NamedLikeUndoStore: Store<CounterState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "namedLikeUndo", state: CounterState(), dispatcher: dispatcher)
        on(NamedLikeUndo.self) { state, _ in state.count += 1 }
    }
}

/// A small deterministic generator so that a failing run can be reproduced.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
