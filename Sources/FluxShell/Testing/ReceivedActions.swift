import Flux

/// The actions that reached the stores a `flux.test_store` asserts, each with the store's state after it,
/// kept until the test store takes them (`t:dispatch` its own, `t:receive` the others).
///
/// A middleware: it hears every committed action, whoever sent it — a follow-up a subscriber dispatched
/// now, an effect's action later — so `t:receive` will take effect actions the same way.
final class ReceivedActions: Middleware {
    struct Entry {
        let name: String
        let action: any Action
        let state: any Encodable
    }

    /// How many open test stores assert each store.
    private var listeners: [String: Int] = [:]
    private var entries: [String: [Entry]] = [:]

    func listen(to store: String) {
        listeners[store, default: 0] += 1
    }

    func stopListening(to store: String) {
        guard let count = listeners[store] else { return }
        if count <= 1 {
            listeners[store] = nil
            entries[store] = nil
        } else {
            listeners[store] = count - 1
        }
    }

    /// The actions kept for `store` since the last call, oldest first.
    func take(for store: String) -> [Entry] {
        defer { entries[store] = nil }
        return entries[store] ?? []
    }

    func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        guard !listeners.isEmpty else { return }
        for name in listeners.keys {
            guard let store = dispatcher.store(named: name), store.handlesEveryAction || store.handles(action.name) else { continue }
            entries[name, default: []].append(Entry(name: action.name, action: action, state: store.encodableState))
        }
    }
}
