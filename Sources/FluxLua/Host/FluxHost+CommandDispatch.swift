import CFluxLua
import Flux
import Foundation

extension FluxHost {
    /// Dispatches the action called `name` with the payload `payloadSource` writes, as
    /// `flux.dispatch(name, payload)` would, entering Lua only to evaluate that text.
    ///
    /// The text is a Lua expression (`{index = 4}`); its value is decoded by the same rules as a table
    /// given to `flux.dispatch`, then the action goes to the dispatcher from Swift. Without a payload
    /// (nil, or blanks), or when the expression is `nil`, the action is built without one and Lua is
    /// not entered at all.
    ///
    /// ```swift
    /// try host.dispatch(actionNamed: "ticTacToe.placeToken", payloadSource: "{index = 4}")
    /// ```
    ///
    /// - Throws: The `LuaError` of kind `.syntax` when the text is no expression; the `LuaError` its
    ///   evaluation raised; ``ActionError`` for an unknown name or a payload the action refuses; a
    ///   ``LuaArgumentError`` for a value that is no table; whatever the dispatch throws (every store as
    ///   it was).
    public func dispatch(actionNamed name: String, payloadSource: String?) throws {
        let action = try action(named: name, payloadSource: payloadSource)
        try refuseWhileRendering("dispatch '\(action.name)'")
        try dispatcher.dispatch(action)
        if !effectsState.pending.isEmpty { runListeners() }
    }

    /// The action called `name` with the payload `payloadSource` writes, decoded as `flux.dispatch`
    /// decodes a table; nothing is dispatched. See ``dispatch(actionNamed:payloadSource:)``.
    public func action(named name: String, payloadSource: String?) throws -> any Action {
        let source = payloadSource?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !source.isEmpty else {
            let lua = activeStack
            return try decodeAction(named: name, on: lua, payloadAt: nil)
        }
        let chunk = try vm.load("return " + source, chunkName: "=payload")
        // One entry into Lua: the payload is decoded from the stack the chunk left it on.
        return try vm.call(chunk, results: 1) { lua, results in
            try decodeAction(named: name, on: lua, payloadAt: results.lowerBound)
        }
    }

    /// Resolves `name` and decodes the value at `index` (nil: none) with ``ActionResolver``, the
    /// resolution and decoding `flux.dispatch` uses.
    private func decodeAction(named name: String, on lua: LuaStack, payloadAt index: Int32?) throws -> any Action {
        let id = try actionID(named: name, on: lua)
        guard let index else { return try resolver.action(id) }
        switch lua.type(at: index) {
        case .nil: return try resolver.action(id)
        case .table: return try resolver.action(id, payloadAt: index, on: lua)
        case let other: throw LuaArgumentError(2, function: "dispatch", "payload table expected, got \(other.name)")
        }
    }

    /// The ``ActionResolver`` id of the action called `name` (the name goes through `lua` and off it).
    ///
    /// - Throws: ``ActionError/unknownAction(_:)``, or ``InvalidNameError``.
    func actionID(named name: String, on lua: LuaStack) throws -> Int {
        let top = lua.top
        defer { lua.top = top }
        try lua.ensureSpace(3)
        lua.push(name)
        return try resolver.resolve(lua, at: -1)
    }

    /// A copy of the state of the store called `name`, as `flux.state(name)` gives it: a fresh table the
    /// caller may keep or change. A Swift store's state is encoded without
    /// entering Lua; a Lua store's is copied by one protected call.
    ///
    /// - Throws: ``FluxHostError/unknownStore(_:known:)``; an error encoding the state.
    public func state(ofStoreNamed name: String) throws -> LuaRef {
        let store = try store(named: name)
        let lua = activeStack
        let top = lua.top
        defer { lua.top = top }
        try lua.ensureSpace(3)
        try pushStateCopy(of: store, on: lua)
        return lua.ref(at: -1)
    }
}
