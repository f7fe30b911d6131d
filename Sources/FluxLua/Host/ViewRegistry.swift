import FluxTable

/// A named view provider: a pure function from one store's state to a table view model.
public struct ViewProvider {
    /// The name `:render`, `flux.render` and `flux.model` know it by.
    public let name: String
    /// The store whose state it renders; its model changes only when that store's state does.
    public let store: String
    /// Builds the model for the store's state now.
    public let model: () throws -> TableViewModel

    /// A provider named `name` rendering `store` through `model`.
    public init(name: String, store: String, model: @escaping () throws -> TableViewModel) {
        self.name = name
        self.store = store
        self.model = model
    }
}

/// The view providers a host knows, by name: Swift ones registered by the application and Lua ones
/// defined with `flux.view`. Registering a name again replaces its provider (a reloaded plugin).
public final class ViewRegistry {
    private var providers: [String: ViewProvider] = [:]
    private var order: [String] = []

    /// An empty registry.
    public init() {}

    /// Adds or replaces a provider.
    public func register(_ provider: ViewProvider) {
        if providers.updateValue(provider, forKey: provider.name) == nil { order.append(provider.name) }
    }

    /// The view names, in the order they were first registered.
    public var names: [String] { order }

    /// The provider called `name`.
    public func provider(named name: String) -> ViewProvider? { providers[name] }

    /// The model of the view `name` for its store's state now.
    ///
    /// - Throws: ``FluxHostError/unknownView(_:)``, or the provider's error.
    public func model(of name: String) throws -> TableViewModel {
        guard let provider = providers[name] else { throw FluxHostError.unknownView(name, known: order) }
        return try provider.model()
    }
}
