import Flux
import FluxTable
import FluxViews
import Testing

@Suite("Watching a view")
struct ViewWatchSpec {
    let dispatcher = Dispatcher()
    let store: ListStore

    init() {
        store = ListStore(dispatcher: dispatcher)
    }

    @Test("a watched Swift view → each action reports the diff from the last model to the published state's")
    func reportsDiff() throws {
        let view = ViewProvider(store: store, render: listModel)
        var reports: [(TableDiff, TableViewModel, TableViewModel)] = []
        let subscription = try view.watch(onChange: { reports.append(($0, $1, $2)) }, onError: { Issue.record($0) })

        try dispatcher.dispatch(AddTitle(title: "one"))
        try dispatcher.dispatch(AddTitle(title: "two"))

        #expect(reports.count == 2)
        #expect(reports.last?.0.rowInserts.map(\.cell.title) == ["two"])
        #expect(reports.last?.0.changeCount == 1)
        #expect(reports.last?.1 == listModel(ListState(titles: ["one"])))
        #expect(reports.last?.2 == listModel(store.state))
        subscription.cancel()
        try dispatcher.dispatch(AddTitle(title: "three"))
        #expect(reports.count == 2)
    }

    @Test("the provider → is called once per published state, with the state observers heard")
    func rendersPublishedStates() throws {
        var rendered: [ListState] = []
        let view = ViewProvider(store: store) { (state: ListState) in
            rendered.append(state)
            return listModel(state)
        }
        let watch = try view.watch(onChange: { _, _, _ in }, onError: { Issue.record($0) })
        var heard: [ListState] = []
        let observer = store.subscribe { heard.append($0) }

        try dispatcher.dispatch(AddTitle(title: "one"))
        #expect(throws: DispatcherError.self) { try dispatcher.dispatch(AddTitle(title: "")) }
        try dispatcher.dispatch(AddTitle(title: "two"))
        try dispatcher.undo()

        #expect(heard.count == 4)
        #expect(rendered == heard)
        watch.cancel()
        observer.cancel()
    }

    @Test("the store's state moves on before the watch hears the change → the model is of the state published")
    func notReRead() throws {
        var rendered: [ListState] = []
        // An earlier observer puts another state in place, unannounced, while the change is being published.
        let earlier = store.subscribe { [store] state in
            if state.titles == ["one"] { store.restore(ListState(titles: ["elsewhere"])) }
        }
        let view = ViewProvider(store: store) { (state: ListState) in
            rendered.append(state)
            return listModel(state)
        }
        var shown: [TableViewModel] = []
        let watch = try view.watch(onChange: { _, _, new in shown.append(new) }, onError: { Issue.record($0) })

        try dispatcher.dispatch(AddTitle(title: "one"))

        #expect(rendered == [ListState(), ListState(titles: ["one"])])
        #expect(shown == [listModel(ListState(titles: ["one"]))])
        watch.cancel()
        earlier.cancel()
    }

    @Test("a model that fails after the watch began → goes to onError; the next diff is from the last model built")
    func failureKeepsLastModel() throws {
        let view = ViewProvider(store: store) { (state: ListState) in
            if state.titles.last == "bad" { throw ListError(description: "cannot show 'bad'") }
            return listModel(state)
        }
        var errors: [String] = []
        var reports: [TableDiff] = []
        let subscription = try view.watch(onChange: { diff, _, _ in reports.append(diff) },
                                          onError: { errors.append("\($0)") })

        try dispatcher.dispatch(AddTitle(title: "bad"))
        try dispatcher.dispatch(AddTitle(title: "good"))

        #expect(errors == ["cannot show 'bad'"])
        #expect(reports.count == 1)
        #expect(reports[0].rowInserts.map(\.cell.title) == ["bad", "good"])
        subscription.cancel()
    }

    @Test("a view whose model fails now → the watch throws and keeps no subscription")
    func failingStart() {
        let view = ViewProvider(store: store) { (_: ListState) -> TableViewModel in
            throw ListError(description: "never renders")
        }
        #expect(throws: ListError.self) {
            _ = try view.watch(onChange: { _, _, _ in }, onError: { Issue.record($0) })
        }
        #expect(store.subscriberCount == 0)
    }

    @Test("an action that changes nothing the view shows → reports nothing")
    func unchangedModel() throws {
        let view = ViewProvider(store: store) { (state: ListState) in listModel(ListState(titles: state.titles.filter { $0 != "hidden" })) }
        var reports = 0
        let subscription = try view.watch(onChange: { _, _, _ in reports += 1 }, onError: { Issue.record($0) })

        try dispatcher.dispatch(AddTitle(title: "hidden"))
        #expect(reports == 0)
        try dispatcher.dispatch(AddTitle(title: "shown"))
        #expect(reports == 1)
        subscription.cancel()
    }
}
