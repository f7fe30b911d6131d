import Testing
@testable import Flux

@Suite("Undo and redo")
struct UndoSpec {
    let dispatcher = Dispatcher()

    @Test("undo → every store the action touched returns to its state before, and subscribers hear it")
    func undoAcrossStores() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let ledger = LedgerStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 4))
        let recorder = Recorder(counter)
        #expect(try dispatcher.undo())
        #expect(counter.state.count == 0)
        #expect(ledger.state.entries.isEmpty)
        #expect(recorder.states.map(\.count) == [4, 0])
        #expect(try dispatcher.redo())
        #expect(counter.state.count == 4)
        #expect(ledger.state.entries == [4])
    }

    @Test("with the history full, new steps fill the boxes of dropped ones: undo still returns each kept state")
    func fullHistoryKeepsEachState() throws {
        let dispatcher = Dispatcher(historyLimit: 3)
        let counter = CounterStore(dispatcher: dispatcher)
        for _ in 1 ... 10 { try dispatcher.dispatch(Increment()) }
        var counts: [Int] = []
        while try dispatcher.undo() { counts.append(counter.state.count) }
        #expect(counts == [9, 8, 7])
        while try dispatcher.redo() { counts.append(counter.state.count) }
        #expect(counts == [9, 8, 7, 8, 9, 10])
    }

    @Test("changing the undo limit keeps the newest steps that fit; a raised limit keeps more from then on")
    func changingTheLimit() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        for _ in 1 ... 6 { try dispatcher.dispatch(Increment()) }
        dispatcher.history.limit = 2
        #expect(dispatcher.history.limit == 2)
        var counts: [Int] = []
        while try dispatcher.undo() { counts.append(counter.state.count) }
        #expect(counts == [5, 4])
        dispatcher.history.limit = 5
        for _ in 1 ... 6 { try dispatcher.dispatch(Increment()) }
        counts = []
        while try dispatcher.undo() { counts.append(counter.state.count) }
        #expect(counts == [9, 8, 7, 6, 5])
        dispatcher.history.limit = -1
        #expect(dispatcher.history.limit == 0)
        try dispatcher.dispatch(Increment())
        #expect(try dispatcher.undo() == false)
    }

    @Test("steps read from the history keep their states while later steps take the places of the dropped ones")
    func savedStepsKeepTheirStates() throws {
        let dispatcher = Dispatcher(historyLimit: 3)
        let counter = CounterStore(dispatcher: dispatcher)
        for _ in 1 ... 3 { try dispatcher.dispatch(Increment()) }
        let saved = dispatcher.history.steps
        // Three more steps drop the three saved ones from the history, whose boxes are free for reuse
        // only if nothing else holds them.
        for _ in 1 ... 3 { try dispatcher.dispatch(Increment()) }
        dispatcher.history.replaceSteps(undo: saved.undo, redo: saved.redo)
        var counts: [Int] = []
        while try dispatcher.undo() { counts.append(counter.state.count) }
        #expect(counts == [2, 1, 0])
    }

    @Test("a named group of actions undoes as one step")
    func groupUndo() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let todos = TodoStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.group("Plan the day") {
            try dispatcher.dispatch(AddTodo(title: "shop"))
            try dispatcher.dispatch(AddTodo(title: "cook"))
            try dispatcher.dispatch(Increment(by: 10))
        }
        #expect(dispatcher.history.undoLabels == ["counter.increment", "Plan the day"])
        try dispatcher.undo()
        #expect(todos.state.titles.isEmpty)
        #expect(counter.state.count == 1)
        try dispatcher.redo()
        #expect(todos.state.titles == ["shop", "cook"])
        #expect(counter.state.count == 11)
    }

    @Test("a group whose body throws rolls back every action it dispatched; subscribers hear the restored state; no undo step remains")
    func groupWithFailure() throws {
        let todos = TodoStore(dispatcher: dispatcher)
        let counter = CounterStore(dispatcher: dispatcher)
        try dispatcher.dispatch(AddTodo(title: "kept"))
        var heard: [[String]] = []
        let subscription = todos.subscribe { heard.append($0.titles) }
        defer { subscription.cancel() }
        #expect(throws: DispatcherError.self) {
            try dispatcher.group("Tidy") {
                try dispatcher.dispatch(AddTodo(title: "a"))
                try dispatcher.dispatch(Increment(by: 5))
                try dispatcher.group("Inner") { try dispatcher.dispatch(AddTodo(title: "b")) }
                try dispatcher.dispatch(RemoveTodo(title: "missing"))
            }
        }
        #expect(todos.state.titles == ["kept"])
        #expect(counter.state.count == 0)
        #expect(heard.last == ["kept"])
        #expect(dispatcher.history.undoLabels == ["todos.add"])
    }

    @Test("an inner group that throws rolls back only its own actions; the outer group goes on as one step")
    func innerGroupFailure() throws {
        let todos = TodoStore(dispatcher: dispatcher)
        try dispatcher.group("Outer") {
            try dispatcher.dispatch(AddTodo(title: "a"))
            try? dispatcher.group("Inner") {
                try dispatcher.dispatch(AddTodo(title: "b"))
                try dispatcher.dispatch(RemoveTodo(title: "missing"))
            }
            try dispatcher.dispatch(AddTodo(title: "c"))
        }
        #expect(todos.state.titles == ["a", "c"])
        #expect(dispatcher.history.undoLabels == ["Outer"])
        try dispatcher.undo()
        #expect(todos.state.titles.isEmpty)
    }

    @Test("all or nothing: work that throws half-way leaves every store and the history as before, and says so to subscribers")
    func allOrNothing() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let todos = TodoStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.dispatch(AddTodo(title: "kept"))
        try dispatcher.undo()
        let recorder = Recorder(counter)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try dispatcher.allOrNothing {
                try dispatcher.dispatch(Increment(by: 10))
                try dispatcher.undo()
                try dispatcher.dispatch(AddTodo(title: "dropped"))
                throw Stop()
            }
        }
        #expect(counter.state.count == 1)
        #expect(todos.state.titles.isEmpty)
        #expect(dispatcher.history.undoLabels == ["counter.increment"])
        #expect(dispatcher.history.redoLabels == ["todos.add"])
        #expect(recorder.states.last?.count == 1, "subscribers hear the state put back")
        #expect(try dispatcher.allOrNothing { try dispatcher.dispatch(Increment(by: 2)); return 7 } == 7)
        #expect(counter.state.count == 3)
    }

    @Test("silently: subscribers hear nothing of the work, then once where it left the stores; a store left as it was is not heard again")
    func silently() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let todos = TodoStore(dispatcher: dispatcher)
        let counts = Recorder(counter), titles = Recorder(todos)
        var queued = 0
        let dispatching = counter.subscribe { state in
            if state.count == 4 { queued += 1; try? self.dispatcher.dispatch(AddTodo(title: "heard 4")) }
        }
        try dispatcher.silently {
            for _ in 1 ... 5 { try dispatcher.dispatch(Increment(by: 1)) }
            try dispatcher.undo()
            try dispatcher.dispatch(AddTodo(title: "gone"))
            try dispatcher.undo()
        }
        #expect(counts.states.map(\.count) == [0, 4])
        #expect(queued == 1, "a subscriber hears the end once, and what it dispatches then runs")
        #expect(titles.states.map(\.titles) == [[], ["heard 4"]], "the todos ended as they began: heard only for the follow-up")
        #expect(dispatcher.history.undoLabels.suffix(5) == ["counter.increment", "counter.increment", "counter.increment", "counter.increment", "todos.add"])

        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try dispatcher.silently {
                try dispatcher.allOrNothing { try dispatcher.dispatch(Increment(by: 10)); throw Stop() }
            }
        }
        #expect(counter.state.count == 4)
        #expect(counts.states.map(\.count) == [0, 4], "work rolled back is not heard at all")

        var refused: (any Error)?
        let nested = counter.subscribe { _ in
            do { try self.dispatcher.silently {} } catch { refused = error }
        }
        try dispatcher.dispatch(Increment(by: 1))
        #expect(refused.map { "\($0)" } == "cannot undo or redo while an action is being dispatched")
        _ = (dispatching, nested)
    }

    @Test("a new action clears redo")
    func newActionClearsRedo() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.undo()
        #expect(dispatcher.history.canRedo)
        try dispatcher.dispatch(Increment(by: 2))
        #expect(!dispatcher.history.canRedo)
        #expect(try dispatcher.redo() == false)
        #expect(counter.state.count == 2)
    }

    @Test("an action that changes nothing leaves no undo step")
    func noOpNotRecorded() throws {
        _ = CounterStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 0))
        #expect(!dispatcher.history.canUndo)
    }

    @Test("history depth is bounded: the oldest steps are dropped")
    func bounded() throws {
        let dispatcher = Dispatcher(historyLimit: 3)
        let counter = CounterStore(dispatcher: dispatcher)
        for _ in 0..<10 { try dispatcher.dispatch(Increment()) }
        #expect(dispatcher.history.undoLabels.count == 3)
        while try dispatcher.undo() {}
        #expect(counter.state.count == 7)
    }

    @Test("undo from inside a handler → an error")
    func undoDuringDispatch() throws {
        let store = Store(name: "undoer", state: 0, dispatcher: dispatcher)
        store.on(Increment.self) { [dispatcher] _, _ in try dispatcher.undo() }
        #expect {
            try dispatcher.dispatch(Increment())
        } throws: { error in
            "\(error)".hasSuffix("cannot undo or redo while an action is being dispatched")
        }
    }
}
