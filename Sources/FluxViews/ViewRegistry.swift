import FluxTable

/// The view providers an application knows, by name, in the order they were first registered.
///
/// Names only: who may replace a view is the business of whoever registers it (a scripting host keeps
/// each view's owner beside its registry).
public final class ViewRegistry {
    private var providers: [String: ViewProvider] = [:]
    private var order: [String] = []

    /// An empty registry.
    public init() {}

    /// Adds `provider`, or replaces the one registered under its name.
    public func register(_ provider: ViewProvider) {
        if providers.updateValue(provider, forKey: provider.name) == nil { order.append(provider.name) }
    }

    /// Removes the view `name`.
    public func unregister(named name: String) {
        guard providers.removeValue(forKey: name) != nil else { return }
        order.removeAll { $0 == name }
    }

    /// The view names, in the order they were first registered.
    public var names: [String] { order }

    /// The provider called `name`.
    public func provider(named name: String) -> ViewProvider? { providers[name] }

    /// The provider called `name`.
    ///
    /// - Throws: ``ViewError/unknownView(_:known:)``.
    public func existingProvider(named name: String) throws -> ViewProvider {
        guard let provider = providers[name] else { throw ViewError.unknownView(name, known: order) }
        return provider
    }

    /// The model of the view `name` for its store's state now.
    ///
    /// - Throws: ``ViewError/unknownView(_:known:)``, or the provider's error.
    public func model(of name: String) throws -> TableViewModel {
        try existingProvider(named: name).model()
    }
}
