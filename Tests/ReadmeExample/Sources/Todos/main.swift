import Flux
import FluxShell
import FluxTable
import FluxViews

// 1. The state: a value type.
struct TodoState: Codable, Equatable {
    var titles: [String] = []
}

// 2. The actions: plain values with stable names.
struct AddTodo: Action {
    static let name = "todos.add"
    let title: String
}

enum TodoError: Error, CustomStringConvertible {
    case emptyTitle
    var description: String { "a todo needs a title" }
}

// 3. The store: one handler per action; a handler changes the state or throws to refuse.
final class TodoStore: Store<TodoState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "todos", state: TodoState(), dispatcher: dispatcher)
        on(AddTodo.self) { state, action in
            guard !action.title.isEmpty else { throw TodoError.emptyTitle }
            state.titles.append(action.title)
        }
    }
}

// 4. The view provider: a pure function from state to a table view model.
enum TodoViewProvider {
    static func tableViewModel(for state: TodoState) -> TableViewModel {
        TableViewModel(sections: [
            SectionModel(headerTitle: "Todos", headerHeight: 28,
                         cells: state.titles.map { CellViewModel(title: $0) }),
        ])
    }
}

// 5. Optional: Lua's `state.titles` reads the titles alone, not the whole state.
extension TodoState: FieldReadable {
    static let fields: [StateField<Self>] = [
        StateField("titles", \.titles),
    ]
}

// Binding, in plain Swift: observers hear the state now, then every change.
let dispatcher = Dispatcher()
let store = TodoStore(dispatcher: dispatcher)
let bag = SubscriptionBag()
bag += store.subscribe { state in print(TableRenderer(options: .init()).render(TodoViewProvider.tableViewModel(for: state))) }
try dispatcher.dispatch(AddTodo(title: "Write the spec"))
try dispatcher.undo()

// The same feature in the shell: its actions dispatchable by name, from `:dispatch` and from Lua.
let shell = Shell(write: { print($0, terminator: "") }, writeError: { print($0, terminator: "") })
let todos = TodoStore(dispatcher: shell.dispatcher)
shell.host.views.register(ViewProvider(store: todos, render: TodoViewProvider.tableViewModel(for:)))
shell.execute(#":dispatch todos.add {title = "Write the spec"}"#)
shell.execute(#"flux.dispatch("todos.add", {title = "Ship it"})"#)
shell.execute(":render todos")
shell.execute(#":dispatch todos.add {title = ""}"#)
