@testable import Flux

// Small stores used across the specs: a counter, a list of todos, and an audit store derived from both.

struct Increment: Action {
    static let name = "counter.increment"
    var by: Int = 1
}

struct Fail: Action {
    static let name = "counter.fail"
    var reason: String
}

struct AddTodo: Action {
    static let name = "todos.add"
    let title: String
}

struct RemoveTodo: Action {
    static let name = "todos.remove"
    let title: String
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

struct CounterState: Codable, Equatable {
    var count = 0
}

final class CounterStore: Store<CounterState> {
    init(dispatcher: Dispatcher, name: String = "counter") {
        super.init(name: name, state: CounterState(), dispatcher: dispatcher)
        on(Increment.self) { state, action in state.count += action.by }
        on(Fail.self) { _, action in throw TestFailure(description: action.reason) }
    }
}

struct TodoState: Codable, Equatable {
    var titles: [String] = []
}

final class TodoStore: Store<TodoState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "todos", state: TodoState(), dispatcher: dispatcher)
        on(AddTodo.self) { state, action in
            guard !action.title.isEmpty else { throw TestFailure(description: "empty title") }
            state.titles.append(action.title)
        }
        on(RemoveTodo.self) { state, action in
            guard let index = state.titles.firstIndex(of: action.title) else {
                throw TestFailure(description: "no todo '\(action.title)'")
            }
            state.titles.remove(at: index)
        }
    }
}

struct LedgerState: Codable, Equatable {
    var entries: [Int] = []
}

/// Also handles increments, after the counter, and refuses negative ones: a second store in one transaction.
final class LedgerStore: Store<LedgerState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "ledger", state: LedgerState(), dispatcher: dispatcher)
        on(Increment.self) { state, action in
            guard action.by >= 0 else { throw TestFailure(description: "negative increment") }
            state.entries.append(action.by)
        }
    }
}

struct SummaryState: Codable, Equatable {
    var text = ""
}

/// Derived from the counter and the todos: proves waitFor runs them first.
final class SummaryStore: Store<SummaryState> {
    init(dispatcher: Dispatcher, counter: CounterStore, todos: TodoStore) {
        super.init(name: "summary", state: SummaryState(), dispatcher: dispatcher)
        onEveryAction { state, _, context in
            try context.waitFor([counter.token, todos.token])
            state.text = "\(counter.state.count) / \(todos.state.titles.count)"
        }
    }
}

/// Records every state a subscription hears.
final class Recorder<State: Encodable> {
    private(set) var states: [State] = []
    var subscription: StoreSubscription?

    init(_ store: Store<State>) {
        subscription = store.subscribe { [unowned self] in self.states.append($0) }
    }
}
