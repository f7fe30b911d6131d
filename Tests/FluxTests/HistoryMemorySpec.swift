import Testing
@testable import Flux

/// A store whose every undo step keeps `stepCost` bytes, as a store of large states would.
private final class BlobStore: Store<CounterState> {
    let stepCost: Int

    init(dispatcher: Dispatcher, stepCost: Int) {
        self.stepCost = stepCost
        super.init(name: "blob", state: CounterState(), dispatcher: dispatcher)
        on(Increment.self) { state, action in state.count += action.by }
    }

    override func undoCost(of state: CounterState) -> Int { stepCost }
}

@Suite("Undo history bounded by memory")
struct HistoryMemorySpec {
    let dispatcher = Dispatcher()
    let notes = NoteLog()

    init() {
        dispatcher.onNote = { [notes] in notes.lines.append($0) }
    }

    @Test("past the memory limit the oldest steps go first, and a note says so once")
    func oldestGoFirst() throws {
        let store = BlobStore(dispatcher: dispatcher, stepCost: 1 << 20)
        dispatcher.history.memoryLimit = 3 << 20
        for _ in 0 ..< 10 { try dispatcher.dispatch(Increment()) }
        #expect(store.state.count == 10)
        #expect(dispatcher.history.undoLabels.count == 3)
        #expect(dispatcher.history.cost == 3 << 20)
        #expect(notes.lines.count == 1)
        #expect(notes.lines.first?.contains("3 MiB") == true)
        while try dispatcher.undo() {}
        #expect(store.state.count == 7, "the three newest steps undo; older ones were dropped")
        try dispatcher.redo()
        #expect(store.state.count == 8)
    }

    @Test("a step larger than the whole limit keeps no undo, and the store goes on working")
    func hugeStep() throws {
        let store = BlobStore(dispatcher: dispatcher, stepCost: 10 << 20)
        dispatcher.history.memoryLimit = 4 << 20
        for _ in 0 ..< 5 { try dispatcher.dispatch(Increment()) }
        #expect(store.state.count == 5)
        #expect(!dispatcher.history.canUndo)
        #expect(dispatcher.history.cost == 0)
        #expect(notes.lines.count == 1)
    }

    @Test("lowering the memory limit drops the oldest steps at once")
    func lowerLimit() throws {
        let store = BlobStore(dispatcher: dispatcher, stepCost: 1 << 20)
        for _ in 0 ..< 6 { try dispatcher.dispatch(Increment()) }
        #expect(dispatcher.history.undoLabels.count == 6)
        dispatcher.history.memoryLimit = 2 << 20
        #expect(dispatcher.history.undoLabels.count == 2)
        try dispatcher.undo()
        try dispatcher.undo()
        #expect(store.state.count == 4)
        #expect(try dispatcher.undo() == false)
    }

    @Test("steps of small states stay bounded by the step limit alone")
    func smallStates() throws {
        let store = CounterStore(dispatcher: dispatcher)
        for _ in 0 ..< 150 { try dispatcher.dispatch(Increment()) }
        #expect(dispatcher.history.undoLabels.count == 100)
        #expect(dispatcher.history.cost == 100 * MemoryLayout<CounterState>.stride)
        #expect(notes.lines.isEmpty)
        while try dispatcher.undo() {}
        #expect(store.state.count == 50)
    }
}

/// The notes a dispatcher told its user.
final class NoteLog {
    var lines: [String] = []
}

@Suite("Undo memory through all-or-nothing work")
struct HistoryMemoryRollbackSpec {
    @Test("work that fails puts back the undo steps with what they keep, and the bound still holds after")
    func rollbackKeepsCost() throws {
        let dispatcher = Dispatcher()
        let notes = NoteLog()
        dispatcher.onNote = { [notes] in notes.lines.append($0) }
        let store = BlobStore(dispatcher: dispatcher, stepCost: 1 << 20)
        dispatcher.history.memoryLimit = 4 << 20
        for _ in 0 ..< 3 { try dispatcher.dispatch(Increment()) }
        #expect(throws: (any Error).self) {
            try dispatcher.allOrNothing {
                for _ in 0 ..< 3 { try dispatcher.dispatch(Increment()) }
                throw DispatcherError.waitForOutsideDispatch
            }
        }
        #expect(store.state.count == 3)
        #expect(dispatcher.history.undoLabels.count == 3)
        #expect(dispatcher.history.cost == 3 << 20)
        for _ in 0 ..< 2 { try dispatcher.dispatch(Increment()) }
        #expect(dispatcher.history.undoLabels.count == 4, "the fifth step drops the oldest: 4 MiB at most")
        #expect(dispatcher.history.cost == 4 << 20)
        while try dispatcher.undo() {}
        #expect(store.state.count == 1)
    }
}
