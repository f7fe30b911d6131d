import Flux

/// The views `:watch` follows, in the order they were watched, each with the subscription that
/// prints its changes: dropping one stops it.
struct WatchedViews {
    private var entries: [(view: String, subscription: StoreSubscription)] = []

    /// The names of the views watched.
    var views: [String] { entries.map(\.view) }

    /// Whether no view is watched.
    var isEmpty: Bool { entries.isEmpty }

    /// Whether `view` is watched.
    func contains(_ view: String) -> Bool {
        entries.contains { $0.view == view }
    }

    /// Follows `view` through `subscription`.
    mutating func add(_ view: String, _ subscription: StoreSubscription) {
        entries.append((view, subscription))
    }

    /// Stops watching `view`; false when it was not watched.
    mutating func remove(_ view: String) -> Bool {
        guard let index = entries.firstIndex(where: { $0.view == view }) else { return false }
        entries.remove(at: index)
        return true
    }

    /// Stops watching every view; returns their names.
    mutating func removeAll() -> [String] {
        defer { entries.removeAll() }
        return views
    }
}
