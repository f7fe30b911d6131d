import OpenCombine
import Testing
@testable import Flux

@Suite("Store")
struct StoreSpec {
    let dispatcher = Dispatcher()

    @Test("subscribing → hears the current state at once, then every change")
    func currentThenChanges() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 5))
        let recorder = Recorder(counter)
        try dispatcher.dispatch(Increment(by: 1))
        #expect(recorder.states.map(\.count) == [5, 6])
    }

    @Test("an equal state is not sent again when State is Equatable")
    func equalStatesNotResent() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let recorder = Recorder(counter)
        try dispatcher.dispatch(Increment(by: 0))
        try dispatcher.dispatch(Increment(by: 1))
        #expect(recorder.states.map(\.count) == [0, 1])
    }

    @Test("a non-Equatable state is sent after every action that touches it")
    func nonEquatableAlwaysSent() throws {
        struct Opaque: Encodable { var value = 0 }
        let store = Store(name: "opaque", state: Opaque(), dispatcher: dispatcher)
        store.on(Increment.self) { state, action in state.value += action.by }
        var heard: [Int] = []
        let subscription = store.subscribe { heard.append($0.value) }
        try dispatcher.dispatch(Increment(by: 0))
        try dispatcher.dispatch(Increment(by: 0))
        #expect(heard == [0, 0, 0])
        _ = subscription
    }

    @Test("cancelling a subscription stops it; cancelling twice is harmless")
    func cancel() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let recorder = Recorder(counter)
        recorder.subscription?.cancel()
        recorder.subscription?.cancel()
        try dispatcher.dispatch(Increment())
        #expect(recorder.states.map(\.count) == [0])
        #expect(counter.subscriberCount == 0)
    }

    @Test("a subscriber cancelled by another during a notification is not called afterwards")
    func cancelDuringNotification() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        var later: StoreSubscription?
        var heardByLater: [Int] = []
        let first = counter.subscribe { state in if state.count == 1 { later?.cancel() } }
        later = counter.subscribe { heardByLater.append($0.count) }
        try dispatcher.dispatch(Increment())
        #expect(heardByLater == [0])
        _ = first
    }

    @Test("subscribers cancelled and added during a notification: the others still hear it, the new ones hear the next")
    func subscribeAndCancelDuringNotification() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        var heard: [String] = []
        var others: [StoreSubscription] = []
        var added: StoreSubscription?
        let first = counter.subscribe { state in
            guard state.count == 1 else { return }
            heard.append("first \(state.count)")
            for other in others { other.cancel() }
            added = counter.subscribe { heard.append("added \($0.count)") }
        }
        others = (0 ..< 3).map { index in counter.subscribe { heard.append("other\(index) \($0.count)") } }
        let last = counter.subscribe { heard.append("last \($0.count)") }
        heard.removeAll()
        try dispatcher.dispatch(Increment())
        #expect(heard == ["first 1", "added 1", "last 1"])
        #expect(counter.subscriberCount == 3)
        heard.removeAll()
        try dispatcher.dispatch(Increment())
        #expect(heard == ["last 2", "added 2"]) // in the order they subscribed
        _ = (first, last, added)
    }

    @Test("a handler that replaces itself during a dispatch finishes; the next action runs the new one")
    func handlerReplacedWhileRunning() throws {
        let store = Store(name: "replacing", state: 0, dispatcher: dispatcher)
        let step = [10] // captured: read after the handler has been replaced
        store.on(Increment.self) { [unowned store] state, action in
            store.on(Increment.self) { state, action in state += action.by }
            state += step[0] * action.by
        }
        try dispatcher.dispatch(Increment(by: 1))
        try dispatcher.dispatch(Increment(by: 1))
        #expect(store.state == 11)
    }

    @Test("releasing a subscription cancels it")
    func releaseCancels() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        var heard = 0
        do {
            let subscription = counter.subscribe { _ in heard += 1 }
            _ = subscription
        }
        try dispatcher.dispatch(Increment())
        #expect(heard == 1)
    }

    @Test("a bag holds many subscriptions and cancels them together")
    func bag() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let bag = SubscriptionBag()
        var heard = 0
        bag += counter.subscribe { _ in heard += 1 }
        counter.subscribe { _ in heard += 1 }.store(in: bag)
        try dispatcher.dispatch(Increment())
        bag.cancel()
        try dispatcher.dispatch(Increment())
        #expect(heard == 4)
        #expect(bag.count == 0)
    }

    @Test("a store lists the actions it handles, and they are dispatchable by name")
    func actionNames() throws {
        let todos = TodoStore(dispatcher: dispatcher)
        #expect(todos.actionNames == ["todos.add", "todos.remove"])
        let action = try dispatcher.registry.decode("todos.add", json: #"{"title":"buy milk"}"#)
        try dispatcher.dispatch(action)
        #expect(todos.state.titles == ["buy milk"])
        #expect(dispatcher.store(named: "todos") === todos)
    }

    @Test("the state publisher supports map, compactMap and prefix(1), like the seed's map, ignoreNil, take(1)")
    func publisher() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        var doubled: [Int] = []
        var evens: [Int] = []
        var first: [Int] = []
        var cancellables = Set<AnyCancellable>()
        counter.statePublisher.map { $0.count * 2 }.sink { doubled.append($0) }.store(in: &cancellables)
        counter.statePublisher.compactMap { $0.count % 2 == 0 ? $0.count : nil }
            .sink { evens.append($0) }.store(in: &cancellables)
        counter.statePublisher.prefix(1).sink { first.append($0.count) }.store(in: &cancellables)
        for _ in 0..<3 { try dispatcher.dispatch(Increment()) }
        #expect(doubled == [0, 2, 4, 6])
        #expect(evens == [0, 2])
        #expect(first == [0])
        #expect(counter.subscriberCount == 2, "prefix(1) let go of its store subscription")
        cancellables.removeAll()
        #expect(counter.subscriberCount == 0)
    }
}
