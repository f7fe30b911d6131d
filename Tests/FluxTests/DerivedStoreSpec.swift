@testable import Flux
import Testing

/// Whether the counter is even: a derived store that recomputes only when the counter changes.
final class ParityStore: Store<Bool> {
    /// How many times the parity was computed.
    var onComputed: () -> Int = { 0 }

    init(dispatcher: Dispatcher, counter: CounterStore) {
        var computed = 0
        super.init(name: "parity", derivedFrom: [counter], dispatcher: dispatcher) {
            computed += 1
            return counter.state.count % 2 == 0
        }
        onComputed = { computed }
    }
}

/// A store derived from other stores, declared with its sources: it changes in the dispatch that changes
/// a source, after it, as one transaction and one undo step, and in no other dispatch.
@Suite("Derived stores")
struct DerivedStoreSpec {
    let dispatcher = Dispatcher()
    let counter: CounterStore
    let todos: TodoStore
    let parity: ParityStore
    let heard: Recorder<Bool>

    init() {
        counter = CounterStore(dispatcher: dispatcher)
        todos = TodoStore(dispatcher: dispatcher)
        parity = ParityStore(dispatcher: dispatcher, counter: counter)
        heard = Recorder(parity)
    }

    @Test("an increment → the parity changes in the same dispatch, and its subscribers hear it once")
    func recomputesWithItsSource() throws {
        try dispatcher.dispatch(Increment(by: 1))
        #expect(parity.state == false)
        #expect(heard.states == [true, false])
        #expect(dispatcher.history.undoLabels == [Increment.name])
    }

    @Test("adding a todo (not a source) → the parity is not recomputed and nobody hears of it")
    func notRecomputedForAnUnrelatedAction() throws {
        let before = parity.onComputed()
        try dispatcher.dispatch(AddTodo(title: "milk"))
        try dispatcher.dispatch(AddTodo(title: "bread"))
        #expect(parity.onComputed() == before)
        #expect(heard.states == [true])
    }

    @Test("an increment by 2 → recomputed to the same parity: published to nobody, no state of it in the undo step")
    func equalResultNotPublished() throws {
        let before = parity.onComputed()
        try dispatcher.dispatch(Increment(by: 2))
        #expect(parity.onComputed() == before + 1)
        #expect(heard.states == [true])
        #expect(counter.state.count == 2)
    }

    @Test("an increment by 0 (the counter unchanged) → the parity is not recomputed")
    func unchangedSourceNotRecomputed() throws {
        let before = parity.onComputed()
        try dispatcher.dispatch(Increment(by: 0))
        #expect(parity.onComputed() == before)
    }

    @Test("undo of an increment → the counter and the parity go back together, in one step")
    func oneUndoStep() throws {
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.undo()
        #expect(counter.state.count == 0)
        #expect(parity.state == true)
        #expect(heard.states == [true, false, true])
        #expect(!dispatcher.history.canUndo)
    }

    @Test("another store refusing the action → the parity, recomputed for it, is rolled back and heard by nobody")
    func rolledBackWithTheTransaction() throws {
        _ = LedgerStore(dispatcher: dispatcher)
        #expect(throws: DispatcherError.self) { try dispatcher.dispatch(Increment(by: -1)) }
        #expect(counter.state.count == 0)
        #expect(parity.state == true)
        #expect(heard.states == [true])
    }

    @Test("a store derived from a derived store → recomputed after it, in the same dispatch")
    func derivedFromDerived() throws {
        let label = Store<String>(name: "label", derivedFrom: [parity], dispatcher: dispatcher) { [parity] in
            parity.state ? "even" : "odd"
        }
        try dispatcher.dispatch(Increment(by: 1))
        #expect(label.state == "odd")
        try dispatcher.undo()
        #expect(label.state == "even")
    }

    @Test("a store waiting for a derived store → sees it recomputed from its sources' new states")
    func waitForDerived() throws {
        let seen = Store<[Bool]>(name: "seen", state: [], dispatcher: dispatcher)
        seen.on(Increment.self) { [parity] state, _, context in
            try context.waitFor([parity.token])
            state.append(parity.state)
        }
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.dispatch(Increment(by: 1))
        #expect(seen.state == [false, true])
    }

    @Test("a derived store is on no action's route, and names its sources")
    func sources() {
        #expect(!parity.handles(Increment.name))
        #expect(dispatcher.sources(of: parity) == ["counter"])
    }
}
