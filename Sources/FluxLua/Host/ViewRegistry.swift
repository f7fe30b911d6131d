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
/// defined with `flux.view`. Each name has an owner; only its owner may register it again.
public final class ViewRegistry {
    private var providers: [String: ViewProvider] = [:]
    private var owners: [String: Owner] = [:]
    private var order: [String] = []

    /// An empty registry.
    public init() {}

    /// Adds a Swift provider, or replaces one Swift registered.
    ///
    /// - Precondition: no script owns the name (Swift registers its views before scripts run).
    public func register(_ provider: ViewProvider) {
        try? register(provider, owner: .swift)
    }

    /// Adds a provider owned by `owner`, or replaces the one `owner` registered under that name.
    ///
    /// - Throws: when another owner holds the name.
    public func register(_ provider: ViewProvider, owner: Owner) throws {
        if let holder = owners[provider.name], holder != owner {
            throw OwnershipError(kind: "view", name: provider.name, owner: holder)
        }
        owners[provider.name] = owner
        if providers.updateValue(provider, forKey: provider.name) == nil { order.append(provider.name) }
    }

    /// Removes the view `name`.
    public func unregister(named name: String) {
        guard providers.removeValue(forKey: name) != nil else { return }
        owners[name] = nil
        order.removeAll { $0 == name }
    }

    /// Who registered the view `name`.
    public func owner(of name: String) -> Owner? { owners[name] }

    /// The names of the views `owner` registered, in order.
    public func names(ownedBy owner: Owner) -> [String] { order.filter { owners[$0] == owner } }

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
