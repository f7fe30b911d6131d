import Flux
import FluxEffects

/// What the host keeps for effects: the runtime it hands to Lua (and to Swift features), the `flux.on`
/// listeners and the committed actions waiting for them, and how many callbacks failed.
final class HostEffects {
    /// A `flux.on` listener: what it listens to, its function, who owns it.
    struct Listener {
        let effect: Effect
        let pattern: ActionPattern
        let function: LuaRef
        let owner: Owner
    }

    let runtime: Effects
    var listeners: [Listener] = []
    /// A listener call waiting for the dispatcher to be idle.
    typealias Call = (listener: Listener, action: any Action)
    /// Listener calls waiting for the dispatcher to be idle, in the order the actions settled. Changed only
    /// by ``queue(_:)`` and ``next()``, so that no access to it spans a call.
    private(set) var pending: [Call] = []
    var runningListeners = false
    /// The subscription to the dispatcher's settled commits, made with the first listener.
    var commitSubscription: Int?
    var drainScheduled = false
    /// How many effect callbacks raised an error.
    var failures = 0
    var effectType = LuaObjectType<Effect>("flux.effect")
    /// Asked while `flux.advance` and `flux.settle` wait: true stops them (the shell's Ctrl-C).
    var shouldStop: () -> Bool = { false }

    init(runtime: Effects) {
        self.runtime = runtime
    }

    /// Queues `call`. The list is swapped out into a local, changed there and swapped back: the accesses
    /// to it are moves, and what the change allocates or releases happens between them. With no access
    /// that may nest another, the compiler leaves out the list's run-time exclusivity check, which every
    /// `flux.dispatch` would pay for asking whether a listener waits.
    func queue(_ call: Call) {
        var list: [Call] = []
        swap(&list, &pending)
        list.append(call)
        swap(&list, &pending)
    }

    /// Takes the first call waiting, if any (as ``queue(_:)`` changes the list).
    func next() -> Call? {
        guard !pending.isEmpty else { return nil }
        var list: [Call] = []
        swap(&list, &pending)
        let first = list.removeFirst()
        swap(&list, &pending)
        return first
    }
}

/// What `flux.on` listens to: one action name, names by a `*` wildcard (`issues.*`), or every action (`*`).
struct ActionPattern: CustomStringConvertible {
    let description: String
    private let prefix: String
    private let suffix: String
    private let isExact: Bool

    init(_ text: String) {
        description = text
        if let star = text.firstIndex(of: "*") {
            prefix = String(text[..<star])
            suffix = String(text[text.index(after: star)...]).replacingOccurrences(of: "*", with: "")
            isExact = false
        } else {
            prefix = text
            suffix = ""
            isExact = true
        }
    }

    func matches(_ name: String) -> Bool {
        isExact ? name == prefix : name.count >= prefix.count + suffix.count && name.hasPrefix(prefix) && name.hasSuffix(suffix)
    }
}

extension Owner {
    /// The owner as the effects runtime names it: `plugin NAME`, `session`, `swift`.
    var effectOwner: EffectOwner {
        switch self {
        case let .plugin(name, _): EffectOwner("plugin \(name)")
        case .session: .session
        case .swift: EffectOwner("swift")
        }
    }
}
