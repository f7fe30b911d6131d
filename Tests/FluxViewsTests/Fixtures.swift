import Flux
import FluxTable

// A list store and its view: one row per title.

struct AddTitle: Action {
    static let name = "list.add"
    let title: String
}

struct ListState: Codable, Equatable {
    var titles: [String] = []
}

final class ListStore: Store<ListState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "list", state: ListState(), dispatcher: dispatcher)
        on(AddTitle.self) { state, action in
            guard !action.title.isEmpty else { throw ListError(description: "a title is needed") }
            state.titles.append(action.title)
        }
    }
}

struct ListError: Error, CustomStringConvertible {
    let description: String
}

/// The list as a table: a "Titles" section, one row per title.
func listModel(_ state: ListState) -> TableViewModel {
    TableViewModel(sections: [
        SectionModel(headerTitle: "Titles", cells: state.titles.map { CellViewModel(title: $0) }),
    ])
}
