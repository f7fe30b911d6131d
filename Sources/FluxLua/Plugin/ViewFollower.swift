import Flux
import FluxTable
import FluxViews

/// A watch of a view by its name: when the view is defined again (`flux.view`, a plugin's reload) it
/// diffs the new provider's models, and when the view goes (a plugin unloaded) it ends.
final class ViewFollower {
    let view: String
    /// Watches the provider registered now; nil when its first model fails (reported).
    private let start: () -> StoreSubscription?
    /// The watch of the provider followed now.
    private var current: StoreSubscription?
    /// Run once when the view goes: the watch has ended.
    var onEnd: (() -> Void)?

    init(view: String, current: StoreSubscription, start: @escaping () -> StoreSubscription?) {
        self.view = view
        self.current = current
        self.start = start
    }

    var isEnded: Bool { current == nil }

    /// The view was defined again, or went (`exists` false).
    func viewChanged(exists: Bool) {
        guard let watching = current else { return }
        watching.cancel()
        current = exists ? start() : nil
        if current == nil { end() }
    }

    /// Stops following.
    func end() {
        current?.cancel()
        current = nil
        let ended = onEnd
        onEnd = nil
        ended?()
    }
}

extension FluxHost {
    /// Tells the watches of the view `name` that it was defined again or went.
    func viewChanged(_ name: String) {
        let exists = views.provider(named: name) != nil
        for follower in viewFollowers.values where follower.view == name { follower.viewChanged(exists: exists) }
    }

    /// A watch of the view `name` that follows its redefinitions (``ViewFollower``).
    func follow(view name: String, _ onChange: @escaping (TableDiff, TableViewModel, TableViewModel) -> Void) throws -> ViewFollower {
        let report: (any Error) -> Void = { [reference] error in
            reference.host?.report(error, heading: "view '\(name)'", source: "view '\(name)'", callback: "view \(name)")
        }
        let first = try views.existingProvider(named: name).watch(onChange: onChange, onError: report)
        let follower = ViewFollower(view: name, current: first) { [reference] in
            guard let host = reference.host, let provider = host.views.provider(named: name) else { return nil }
            do {
                return try provider.watch(onChange: onChange, onError: report)
            } catch {
                report(error)
                return nil
            }
        }
        let id = ObjectIdentifier(follower)
        viewFollowers[id] = follower
        follower.onEnd = { [reference] in reference.host?.viewFollowers[id] = nil }
        return follower
    }
}
