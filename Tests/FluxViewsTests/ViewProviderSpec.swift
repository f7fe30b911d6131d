import Flux
import FluxTable
import FluxViews
import Testing

@Suite("View providers and their registry")
struct ViewProviderSpec {
    let dispatcher = Dispatcher()
    let store: ListStore

    init() {
        store = ListStore(dispatcher: dispatcher)
    }

    @Test("a Swift view → is named after its store and renders its state now")
    func swiftView() throws {
        let view = ViewProvider(store: store, render: listModel)
        #expect(view.name == "list" && view.store == "list")
        try dispatcher.dispatch(AddTitle(title: "one"))
        #expect(try view.model() == listModel(ListState(titles: ["one"])))
    }

    @Test("a view found by store name → renders the state the store publishes, as it encodes it")
    func foundByName() throws {
        var rendered: [String] = []
        let view = ViewProvider(name: "titles", store: "list", find: { [dispatcher] in
            guard let store = dispatcher.store(named: "list") else { throw ListError(description: "no store 'list'") }
            return store
        }) { state in
            let state = try #require(state as? ListState)
            rendered.append(state.titles.joined(separator: ","))
            return listModel(state)
        }
        var reports = 0
        let subscription = try view.watch(onChange: { _, _, _ in reports += 1 }, onError: { Issue.record($0) })
        try dispatcher.dispatch(AddTitle(title: "one"))

        #expect(reports == 1)
        #expect(rendered == ["", "one"])
        #expect(try view.model() == listModel(store.state))
        subscription.cancel()
    }

    @Test("a view whose store cannot be found → watching it throws that error")
    func missingStore() {
        let view = ViewProvider(name: "gone", store: "gone", find: { throw ListError(description: "no store 'gone'") }) { _ in
            TableViewModel()
        }
        #expect(throws: ListError.self) { _ = try view.watch(onChange: { _, _, _ in }, onError: { _ in }) }
        #expect(throws: ListError.self) { _ = try view.model() }
    }

    @Test("the registry → keeps first-registration order, replaces in place, removes, and names the known views")
    func registry() throws {
        let views = ViewRegistry()
        #expect(throws: ViewError.unknownView("list", known: [])) { _ = try views.model(of: "list") }
        views.register(ViewProvider(store: store, render: listModel))
        views.register(ViewProvider(name: "count", store: store) { state in
            TableViewModel(sections: [SectionModel(headerTitle: "\(state.titles.count) titles")])
        })
        views.register(ViewProvider(name: "list", store: store) { _ in TableViewModel() })

        #expect(views.names == ["list", "count"])
        #expect(try views.model(of: "list") == TableViewModel())
        #expect(try views.model(of: "count").sections.first?.headerTitle == "0 titles")
        #expect(throws: ViewError.unknownView("chart", known: ["list", "count"])) { _ = try views.model(of: "chart") }
        #expect("\(ViewError.unknownView("chart", known: ["list", "count"]))" == "unknown view 'chart' (known: list, count)")

        views.unregister(named: "list")
        #expect(views.names == ["count"])
        #expect(views.provider(named: "list") == nil)
    }
}
