import Flux
import FluxTable
import FluxViews

/// The host is what a live view (`:open`, `flux.pilot`) dispatches through: a row's action goes the way
/// `:dispatch` sends it, undo and redo the way `:undo` and `:redo` do.
extension FluxHost: LiveViewActions {
    /// Dispatches `name` with `payload` decoded as `flux.dispatch` decodes a table; the payload is pushed
    /// as a table, not evaluated, so no Lua runs but the stores' handlers.
    public func dispatch(action name: String, payload: CellPayload?) throws {
        let lua = activeStack
        let top = lua.top
        defer { lua.top = top }
        try lua.ensureSpace(4)
        let id = try actionID(named: name, on: lua)
        let action: any Action
        switch payload {
        case nil, .null?:
            action = try resolver.action(id)
        case .object?, .array?:
            try LuaEncoder().push(payload, to: lua)
            action = try resolver.action(id, payloadAt: lua.top, on: lua)
        case let other?:
            throw FluxScriptError("the payload of '\(name)' must be a table, got \(other.luaSource)")
        }
        try refuseWhileRendering("dispatch '\(action.name)'")
        try dispatcher.dispatch(action)
    }

    public func undo() throws -> String? {
        try travel(undo: true)
    }

    public func redo() throws -> String? {
        try travel(undo: false)
    }

    private func travel(undo: Bool) throws -> String? {
        try refuseWhileRendering(undo ? "undo" : "redo")
        return try dispatcher.silently {
            let history = dispatcher.history
            guard let label = undo ? history.undoLabels.last : history.redoLabels.first,
                  undo ? try dispatcher.undo() : try dispatcher.redo() else { return nil }
            return label
        }
    }

    /// The view `name` while it and its store exist.
    public func view(named name: String) -> ViewProvider? {
        guard let provider = views.provider(named: name), (try? store(named: provider.store)) != nil else { return nil }
        return provider
    }

    public var viewNames: [String] { views.names }
}
