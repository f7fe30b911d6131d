import Flux
import FluxTable

/// A named view provider: a pure function from one store's state to a table view model.
///
/// It is given the state to render: for a watch, the state the store published to its observers, so a
/// model is never built from a state read again later.
///
/// ```swift
/// let board = ViewProvider(store: ticTacToe, render: TicTacToeViewProvider.tableViewModel(for:))
/// print(TableRenderer(options: .detect()).render(try board.model()))
/// let watch = try board.watch(onChange: { changes, _, _ in print(changes.changeCount) }, onError: { print($0) })
/// ```
public struct ViewProvider {
    /// The name `:render`, `flux.render` and `flux.model` know it by.
    public let name: String
    /// The name of the store whose state it renders; its model changes only when that store's state does.
    public let store: String
    /// Extra keys a live view (`:open`) offers on this view: a key (`"d"`, `"ctrl+d"`) → the name of the
    /// action it dispatches with the selected cell's payload, e.g. `["d": "issues.close"]`.
    public var keys: [String: String] = [:]
    private let current: () throws -> TableViewModel
    private let observe: (@escaping (Result<TableViewModel, any Error>) -> Void) throws -> StoreSubscription

    /// A view of `store`'s typed state, named `name` (the store's name if nil).
    public init<State>(name: String? = nil, store: Store<State>, render: @escaping (State) throws -> TableViewModel) {
        self.name = name ?? store.name
        self.store = store.name
        current = { try render(store.state) }
        observe = { observer in store.subscribe { state in observer(Result { try render(state) }) } }
    }

    /// A view named `name` of the store called `store`, which `find` looks up each time the view is
    /// rendered or watched (a store defined at run time may go). `render` receives the store's state as
    /// ``StoreProtocol`` publishes it.
    public init(
        name: String,
        store: String,
        find: @escaping () throws -> any StoreProtocol,
        render: @escaping (any Encodable) throws -> TableViewModel
    ) {
        self.name = name
        self.store = store
        current = { try render(find().encodableState) }
        observe = { observer in
            try find().subscribeEncodable { state in observer(Result { try render(state) }) }
        }
    }

    /// The model for the store's state now.
    public func model() throws -> TableViewModel {
        try current()
    }

    /// Calls `observer` with the model of the state the store publishes now and after every change,
    /// or with the error building it failed with, until the subscription is cancelled.
    ///
    /// - Throws: when the store cannot be found.
    public func subscribe(_ observer: @escaping (Result<TableViewModel, any Error>) -> Void) throws -> StoreSubscription {
        try observe(observer)
    }
}
