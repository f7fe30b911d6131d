import Flux
import FluxLua
import FluxShell
import FluxTable
import FluxViews
import Testing

// docs/swift-tutorial.md's feature, as written there (Tests/ReadmeExample builds the page's files
// whole): if this stops compiling or behaving, the manual is wrong.

private struct TodoState: Codable, Equatable {
    var titles: [String] = []
}

private struct AddTodo: Action {
    static let name = "todos.add"
    let title: String
}

private enum TodoError: Error, CustomStringConvertible {
    case emptyTitle
    var description: String { "a todo needs a title" }
}

private final class TodoStore: Store<TodoState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "todos", state: TodoState(), dispatcher: dispatcher)
        on(AddTodo.self) { state, action in
            guard !action.title.isEmpty else { throw TodoError.emptyTitle }
            state.titles.append(action.title)
        }
    }
}

// Lua's `state.titles` reads the titles alone.
extension TodoState: FieldReadable {
    static let fields: [StateField<Self>] = [
        StateField("titles", \.titles),
    ]
}

private enum TodoViewProvider {
    static func tableViewModel(for state: TodoState) -> TableViewModel {
        TableViewModel(sections: [
            SectionModel(headerTitle: "Todos", headerHeight: 28,
                         cells: state.titles.map { CellViewModel(title: $0) }),
        ])
    }
}

@Suite("The README's Swift feature")
struct ReadmeFeatureSpec {
    @Test("dispatching, observing and undoing in plain Swift")
    func plainSwift() throws {
        let dispatcher = Dispatcher()
        let store = TodoStore(dispatcher: dispatcher)
        let bag = SubscriptionBag()
        var rendered: [String] = []
        bag += store.subscribe { state in
            rendered.append(TableRenderer(options: .init()).render(TodoViewProvider.tableViewModel(for: state)))
        }
        try dispatcher.dispatch(AddTodo(title: "Write the spec"))
        #expect(rendered.count == 2)
        #expect(rendered.last?.contains("Write the spec") == true)
        #expect(throws: (any Error).self) { try dispatcher.dispatch(AddTodo(title: "")) }
        #expect(store.state.titles == ["Write the spec"])
        try dispatcher.undo()
        #expect(store.state.titles.isEmpty)
    }

    @Test("the feature in the shell: dispatched and rendered by name, from a command and from Lua")
    func inTheShell() throws {
        var output = "", errors = ""
        var configuration = ShellConfiguration()
        configuration.features = false
        let shell = Shell(configuration: configuration, write: { output += $0 }, writeError: { errors += $0 })
        let todos = TodoStore(dispatcher: shell.dispatcher)
        shell.host.views.register(ViewProvider(store: todos, render: TodoViewProvider.tableViewModel(for:)))

        #expect(shell.execute(#":dispatch todos.add {title = "Write the spec"}"#))
        #expect(shell.execute(#"flux.dispatch("todos.add", {title = "Ship it"})"#))
        #expect(todos.state.titles == ["Write the spec", "Ship it"])
        #expect(shell.execute(#"flux.subscribe("todos", function(state) second, other = state.titles[2], state.other end)"#))
        #expect(try shell.host.run("return second, other") == [.string("Ship it"), .nil])
        #expect(shell.execute(":render todos"))
        #expect(output.contains("Todos") && output.contains("Ship it"))

        #expect(!shell.execute(#":dispatch todos.add {title = ""}"#))
        #expect(errors.contains("a todo needs a title"))
        #expect(todos.state.titles == ["Write the spec", "Ship it"])
    }
}
