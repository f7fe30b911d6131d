import Testing
@testable import Flux

@Suite("Dispatcher")
struct DispatcherSpec {
    let dispatcher = Dispatcher()

    @Test("dispatching an action → every store that handles it changes, others do not")
    func routesByName() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let todos = TodoStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 3))
        #expect(counter.state.count == 3)
        #expect(todos.state.titles.isEmpty)
    }

    @Test("a registered callback sees every action; unregistering stops it")
    func callbackRegistration() throws {
        var seen: [String] = []
        let token = dispatcher.register(name: "spy") { seen.append($0.name) }
        try dispatcher.dispatch(Increment())
        try dispatcher.dispatch(AddTodo(title: "a"))
        try dispatcher.unregister(token)
        try dispatcher.dispatch(Increment())
        #expect(seen == ["counter.increment", "todos.add"])
    }

    @Test("unregistering an unknown token → an error naming the token")
    func unknownTokenUnregister() throws {
        let token = dispatcher.register(name: "spy") { _ in }
        try dispatcher.unregister(token)
        #expect(throws: DispatcherError.self) { try dispatcher.unregister(token) }
        do { try dispatcher.unregister(token) } catch {
            #expect("\(error)" == "unknown dispatch token spy#\(token.id)")
        }
    }

    @Test("dispatching from inside a store handler → an error, and nothing changes")
    func dispatchInsideHandler() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let nested = Store(name: "nested", state: CounterState(), dispatcher: dispatcher)
        nested.on(AddTodo.self) { [dispatcher] state, _ in
            state.count = 99
            try dispatcher.dispatch(Increment())
        }
        #expect(dispatcher.isDispatching == false)
        #expect {
            try dispatcher.dispatch(AddTodo(title: "x"))
        } throws: { error in
            "\(error)" == "store 'nested' failed on 'todos.add': cannot dispatch 'counter.increment' while 'todos.add' is being handled"
        }
        #expect(counter.state.count == 0)
        #expect(nested.state.count == 0)
    }

    @Test("isDispatching is true only while stores handle an action")
    func isDispatching() throws {
        let probe = Store(name: "probe", state: [Bool](), dispatcher: dispatcher)
        probe.on(Increment.self) { [dispatcher] state, _ in state.append(dispatcher.isDispatching) }
        try dispatcher.dispatch(Increment())
        #expect(probe.state == [true])
        #expect(dispatcher.isDispatching == false)
    }

    @Test("waitFor outside a dispatch → an error")
    func waitForOutside() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        #expect {
            try dispatcher.waitFor([counter.token])
        } throws: { error in
            "\(error)" == "waitFor can only be called while an action is being dispatched"
        }
    }

    @Test("waitFor runs the named stores first, so a derived store reads their new state")
    func waitForOrder() throws {
        // The summary registers before the stores it reads: only waitFor can put them first.
        final class Upstream {
            var counter: CounterStore!
            var todos: TodoStore!
        }
        let upstream = Upstream()
        let summary = Store(name: "summary", state: SummaryState(), dispatcher: dispatcher)
        summary.onEveryAction { [dispatcher] state, _ in
            try dispatcher.waitFor([upstream.counter.token, upstream.todos.token])
            state.text = "\(upstream.counter.state.count) / \(upstream.todos.state.titles.count)"
        }
        upstream.counter = CounterStore(dispatcher: dispatcher)
        upstream.todos = TodoStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 2))
        #expect(summary.state.text == "2 / 0")
        try dispatcher.dispatch(AddTodo(title: "write specs"))
        #expect(summary.state.text == "2 / 1")
    }

    @Test("a handler for one action type waits for another store through its context and reads its new state")
    func onWithContext() throws {
        // The total registers before the counter it reads: only waitFor can put the counter first.
        final class Upstream { var counter: CounterStore! }
        let upstream = Upstream()
        let total = Store(name: "total", state: 0, dispatcher: dispatcher)
        total.on(Increment.self) { state, _, context in
            try context.waitFor([upstream.counter.token])
            state = upstream.counter.state.count * 10
        }
        upstream.counter = CounterStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 2))
        #expect(total.state == 20)
        try dispatcher.undo()
        #expect(total.state == 0 && upstream.counter.state.count == 0)
    }

    @Test("a store whose handlers wait through the context does not keep its dispatcher alive")
    func contextKeepsNoDispatcher() throws {
        weak var released: Dispatcher?
        do {
            let dispatcher = Dispatcher()
            let counter = CounterStore(dispatcher: dispatcher)
            let doubled = Store(name: "doubled", state: 0, dispatcher: dispatcher)
            doubled.on(Increment.self) { [unowned counter] state, _, context in
                try context.waitFor([counter.token])
                state = counter.state.count * 2
            }
            try dispatcher.dispatch(Increment())
            #expect(doubled.state == 2)
            released = dispatcher
        }
        #expect(released == nil)
    }

    @Test("a store that unregisters itself in its handler finishes that action; the next one no longer reaches it")
    func unregisterInsideOwnHandler() throws {
        let once = Store(name: "once", state: 0, dispatcher: dispatcher)
        let token = once.token
        once.on(Increment.self) { [unowned dispatcher] state, _ in
            state += 1
            try dispatcher.unregister(token)
        }
        try dispatcher.dispatch(Increment())
        try dispatcher.dispatch(Increment())
        #expect(once.state == 1)
        #expect(dispatcher.store(named: "once") == nil)
        try dispatcher.undo()
        #expect(once.state == 0)
    }

    @Test("waitFor with an unknown token → an error naming it, and nothing changes")
    func waitForUnknownToken() throws {
        let ghost = dispatcher.register(name: "ghost") { _ in }
        try dispatcher.unregister(ghost)
        let counter = CounterStore(dispatcher: dispatcher)
        let waiter = Store(name: "waiter", state: 0, dispatcher: dispatcher)
        waiter.on(Increment.self) { state, _, context in
            state += 1
            try context.waitFor([ghost])
        }
        #expect {
            try dispatcher.dispatch(Increment())
        } throws: { error in
            "\(error)".hasSuffix("unknown dispatch token ghost#\(ghost.id)")
        }
        #expect(counter.state.count == 0)
        #expect(waiter.state == 0)
    }

    @Test("a waitFor cycle → an error naming the stores in the cycle, and nothing changes")
    func waitForCycle() throws {
        let first = Store(name: "first", state: 0, dispatcher: dispatcher)
        let second = Store(name: "second", state: 0, dispatcher: dispatcher)
        first.on(Increment.self) { [unowned second] state, _, context in
            state += 1
            try context.waitFor([second.token])
        }
        second.on(Increment.self) { [unowned first] state, _, context in
            state += 1
            try context.waitFor([first.token])
        }
        #expect {
            try dispatcher.dispatch(Increment())
        } throws: { error in
            guard case let .storeFailed(_, _, underlying) = error as? DispatcherError,
                  case let .waitForCycle(stores) = underlying as? DispatcherError else { return false }
            return stores == ["first", "second", "first"]
                && "\(error)" == "store 'second' failed on 'counter.increment': waitFor cycle: first → second → first"
        }
        #expect(first.state == 0 && second.state == 0)
    }

    @Test("subscribers are notified after every store has handled the action, in store then subscription order")
    func notificationOrder() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let ledger = LedgerStore(dispatcher: dispatcher)
        var events: [String] = []
        let a = counter.subscribe { _ in events.append("counter A (ledger \(ledger.state.entries.count))") }
        let b = counter.subscribe { _ in events.append("counter B") }
        let c = ledger.subscribe { _ in events.append("ledger C") }
        events.removeAll()
        try dispatcher.dispatch(Increment(by: 1))
        #expect(events == ["counter A (ledger 1)", "counter B", "ledger C"])
        _ = (a, b, c)
    }

    @Test("a subscriber's dispatch runs after the current action finishes, in order, never re-entrantly")
    func followUpDispatch() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let todos = TodoStore(dispatcher: dispatcher)
        var log: [String] = []
        let chain = counter.subscribe { [dispatcher] state in
            log.append("counter \(state.count)")
            if state.count == 1 {
                try? dispatcher.dispatch(AddTodo(title: "first"))
                try? dispatcher.dispatch(AddTodo(title: "second"))
                log.append("queued")
            }
        }
        let watch = todos.subscribe { log.append("todos \($0.titles)") }
        log.removeAll()
        try dispatcher.dispatch(Increment())
        #expect(log == ["counter 1", "queued", "todos [\"first\"]", "todos [\"first\", \"second\"]"])
        _ = (chain, watch)
    }

    @Test("a failing follow-up is reported and the action that queued it stays done")
    func followUpFailure() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        var reported: [String] = []
        dispatcher.onFollowUpError = { action, error in reported.append("\(action.name): \(error)") }
        let chain = counter.subscribe { [dispatcher] state in
            if state.count == 1 { try? dispatcher.dispatch(Fail(reason: "boom")) }
        }
        try dispatcher.dispatch(Increment())
        #expect(counter.state.count == 1)
        #expect(reported == ["counter.fail: store 'counter' failed on 'counter.fail': boom"])
        _ = chain
    }

    @Test("a subscriber that dispatches on every change → stopped after the follow-up limit, reported, and the next dispatch works")
    func followUpLoop() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        dispatcher.followUpLimit = 50
        var reported: [String] = []
        dispatcher.onFollowUpError = { action, error in reported.append("\(action.name): \(error)") }
        var looping = false
        let loop = counter.subscribe { [dispatcher] _ in
            if looping { try? dispatcher.dispatch(Increment()) }
        }
        looping = true
        try dispatcher.dispatch(Increment())
        #expect(counter.state.count == 51) // the action itself and 50 follow-ups
        #expect(reported == ["counter.increment: follow-up actions did not settle after 50 in a row (a subscriber dispatches on every change?); 'counter.increment' and the rest of the queue were dropped"])

        looping = false
        try dispatcher.dispatch(Increment())
        #expect(counter.state.count == 52)
        #expect(reported.count == 1)
        _ = loop
    }
}
