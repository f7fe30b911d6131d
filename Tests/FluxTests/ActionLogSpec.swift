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
                dispatcher.middleware.append(ActionRecorder(clock: { 0 }) { [unowned self] in self.lines.append($0) })
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

    @Test("a line holds name, payload, time and group")
    func lineFormat() throws {
        let world = World(recording: true)
        try world.dispatcher.group("Shopping") { try world.dispatcher.dispatch(AddTodo(title: "milk")) }
        try world.dispatcher.undo()
        #expect(world.lines == [
            #"{"group":1,"label":"Shopping","name":"todos.add","payload":{"title":"milk"},"time":0}"#,
            #"{"name":"flux.undo","time":0}"#,
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

    @Test("a dispatch that fails midway → its line number; the valid steps before it stay applied")
    func failingStep() throws {
        let world = World(recording: false)
        let log = """
        {"name":"todos.add","payload":{"title":"a"}}
        {"name":"todos.remove","payload":{"title":"x"}}
        {"name":"todos.add","payload":{"title":"b"}}
        """
        #expect(throws: ReplayError(line: 2, message: "store 'todos' failed on 'todos.remove': no todo 'x'")) {
            try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: log)
        }
        #expect(world.todos.state.titles == ["a"])
    }

    @Test("an unknown action or a bad payload in a log → the line number and the field")
    func badEntries() throws {
        let world = World(recording: false)
        let replayer = ActionReplayer(dispatcher: world.dispatcher)
        #expect(throws: ReplayError(line: 2, message: "unknown action 'todos.explode'")) {
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
