import Testing
@testable import Flux

/// `Dispatcher.setStates`: stores put to given states as one undo step, recorded as a `states` line
/// that replays to the same states.
@Suite("Setting states")
struct SetStatesSpec {
    @Test("states set as one step: published, undone and redone together, recorded as a line that replays")
    func oneStep() throws {
        let world = ActionLogSpec.World(recording: true)
        try world.dispatcher.dispatch(Increment(by: 1))
        try world.dispatcher.dispatch(AddTodo(title: "milk"))
        var heard = 0
        let subscription = world.counter.subscribe { _ in heard += 1 }
        defer { subscription.cancel() }
        let before = heard
        try world.dispatcher.setStates([(world.counter, CounterState(count: 40)), (world.todos, TodoState(titles: ["tea"]))], label: "goto 7")
        #expect(world.counter.state.count == 40 && world.todos.state.titles == ["tea"] && heard == before + 1)
        #expect(world.dispatcher.history.undoLabels == ["counter.increment", "todos.add", "goto 7"])
        #expect(world.lines.last == #"{"states":[{"format":"json","state":"{\"count\":40}","store":"counter"},"#
            + #"{"format":"json","state":"{\"titles\":[\"tea\"]}","store":"todos"}],"label":"goto 7","time":0.0}"#)
        let replica = ActionLogSpec.World(recording: false)
        try ActionReplayer(dispatcher: replica.dispatcher).replay(contentsOf: world.lines.joined(separator: "\n"))
        #expect(replica.snapshot == world.snapshot)
        try world.dispatcher.undo()
        #expect(world.counter.state.count == 1 && world.todos.state.titles == ["milk"])
        try world.dispatcher.redo()
        #expect(world.counter.state.count == 40 && world.todos.state.titles == ["tea"])
    }

    @Test("a states line naming a store that is not there, or a state that no longer decodes, stops the replay; nothing changes")
    func badLine() throws {
        let world = ActionLogSpec.World(recording: false)
        try world.dispatcher.dispatch(Increment(by: 1))
        let missing = #"{"states":[{"store":"nowhere","format":"json","state":"{}"}],"label":"goto 1"}"#
        let error = try #require(throws: ReplayError.self) { try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: missing) }
        #expect(error.description.contains("store 'nowhere' is not there now"))
        let reshaped = #"{"states":[{"store":"counter","format":"json","state":"{\"total\":1}"}],"label":"goto 1"}"#
        #expect(throws: ReplayError.self) { try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: reshaped) }
        #expect(throws: ReplayError.self) { try ActionReplayer(dispatcher: world.dispatcher).replay(contentsOf: #"{"states":3}"#) }
        #expect(world.counter.state.count == 1 && world.dispatcher.history.undoLabels == ["counter.increment"])
    }
}
