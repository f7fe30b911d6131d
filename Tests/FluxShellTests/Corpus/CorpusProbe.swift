import Flux
import FluxLua
import FluxTable
import FluxViews
import Foundation

// A Swift store, a middleware and Swift view providers that fail on request, so the corpus can
// reach every kind of Swift callback with every kind of error value.

struct ProbeState: Codable, Equatable {
    var count = 0
    var tags: [String] = []
}

struct ProbeAdd: Action {
    static let name = "probe.add"
    let by: Int
}

struct ProbeTag: Action {
    static let name = "probe.tag"
    let tags: [String]
}

/// Fails in the store's handler with the error value `kind` names.
struct ProbeFail: Action {
    static let name = "probe.fail"
    let kind: String
}

/// Refused by the probe middleware with the error value `kind` names.
struct ProbeReject: Action {
    static let name = "probe.reject"
    let kind: String
}

/// Its handler dispatches another action.
struct ProbeDispatchInside: Action {
    static let name = "probe.dispatchInside"
}

/// Its handler waits for its own store.
struct ProbeWaitForSelf: Action {
    static let name = "probe.waitForSelf"
}

/// Its handler undoes.
struct ProbeUndoInside: Action {
    static let name = "probe.undoInside"
}

/// An error with a message of its own (a Lua string error's counterpart).
struct ProbeMessageError: Error, CustomStringConvertible {
    let description: String
}

/// An error that is a structure with fields and no message (a Lua table error's counterpart).
struct ProbeStructuredError: Error {
    let code: Int
    let reason: String
}

/// An error with nothing in it (a Lua nil error's counterpart).
struct ProbeEmptyError: Error {}

/// The error value `kind` names: "string", "table", "nil" or "number".
func probeError(_ kind: String) -> any Error {
    switch kind {
    case "string": return ProbeMessageError(description: "probe refused: a message")
    case "table": return ProbeStructuredError(code: 7, reason: "a structured refusal")
    case "nil": return ProbeEmptyError()
    default: return NSError(domain: "probe", code: 42)
    }
}

final class ProbeStore: Store<ProbeState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "probe", state: ProbeState(), dispatcher: dispatcher)
        on(ProbeAdd.self) { state, action in
            let (sum, overflow) = state.count.addingReportingOverflow(action.by)
            guard !overflow else { throw ProbeMessageError(description: "probe.add: \(action.by) overflows the count") }
            state.count = sum
        }
        on(ProbeTag.self) { state, action in state.tags += action.tags }
        on(ProbeFail.self) { state, action in
            state.count += 1 // changed, then refused: the change must not stay
            throw probeError(action.kind)
        }
        on(ProbeReject.self) { state, _ in state.count += 1 }
        on(ProbeDispatchInside.self) { [unowned dispatcher] state, _ in
            state.count += 1
            try dispatcher.dispatch(ProbeAdd(by: 1))
        }
        on(ProbeWaitForSelf.self) { [unowned self] state, _ in
            state.count += 1
            try self.dispatcher.waitFor([self.token])
        }
        on(ProbeUndoInside.self) { [unowned dispatcher] state, _ in
            state.count += 1
            try dispatcher.undo()
        }
    }
}

/// Refuses `probe.reject` with the error value its payload names; "dispatch" dispatches instead.
final class ProbeMiddleware: Middleware {
    func willDispatch(_ action: any Action, in dispatcher: Dispatcher) throws {
        guard let action = action as? ProbeReject else { return }
        if action.kind == "dispatch" {
            try dispatcher.dispatch(ProbeAdd(by: 1))
            return
        }
        throw probeError(action.kind)
    }
}

/// Swift view providers named `broken.<kind>` that throw the error value `kind` names.
func probeViews(of store: ProbeStore) -> [ViewProvider] {
    ["string", "table", "nil", "number"].map { kind in
        ViewProvider(name: "broken.\(kind)", store: store) { _ in throw probeError(kind) }
    }
}

/// Installs the probe store, middleware and views on a dispatcher and host.
func installProbe(on dispatcher: Dispatcher, host: FluxHost) -> ProbeStore {
    let store = ProbeStore(dispatcher: dispatcher)
    dispatcher.middleware.append(ProbeMiddleware())
    for view in probeViews(of: store) { host.views.register(view) }
    return store
}
