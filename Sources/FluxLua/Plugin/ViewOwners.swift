import FluxViews

/// Who owns each view in a host's ``ViewRegistry``: only its owner may define it again, and a plugin's
/// views go with the plugin.
///
/// The registry knows names and providers only; ownership is the host's, as it is for stores. A view
/// with no owner here was registered from Swift and belongs to the Swift features.
final class ViewOwners {
    private let views: ViewRegistry
    private var owners: [String: Owner] = [:]
    /// Called with a view's name after it is defined again or removed: its watches follow it.
    var onChange: ((String) -> Void)?

    /// The owners of `views`' providers.
    init(of views: ViewRegistry) {
        self.views = views
    }

    /// Who registered the view `name`.
    func owner(of name: String) -> Owner? {
        guard views.provider(named: name) != nil else { return nil }
        return owners[name] ?? .swift
    }

    /// Adds a provider owned by `owner`, or replaces the one `owner` registered under that name.
    ///
    /// - Throws: when another owner holds the name.
    func register(_ provider: ViewProvider, owner: Owner) throws {
        if let holder = self.owner(of: provider.name), holder != owner {
            throw OwnershipError(kind: "view", name: provider.name, owner: holder)
        }
        let replaced = views.provider(named: provider.name) != nil
        owners[provider.name] = owner
        views.register(provider)
        if replaced { onChange?(provider.name) }
    }

    /// Removes the view `name`.
    func unregister(named name: String) {
        let existed = views.provider(named: name) != nil
        owners[name] = nil
        views.unregister(named: name)
        if existed { onChange?(name) }
    }

    /// The names of the views `owner` registered, in order.
    func names(ownedBy owner: Owner) -> [String] {
        views.names.filter { self.owner(of: $0) == owner }
    }
}
