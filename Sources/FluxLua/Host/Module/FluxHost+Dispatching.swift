import Flux

/// `flux.dispatch`, `flux.group`, `flux.undo` and `flux.redo`: what changes the stores.
extension FluxHost {
    /// `flux.dispatch(name, payload?)` or `flux.dispatch{type = name, …}`.
    func dispatch(_ arguments: LuaArguments) throws -> Int32 {
        try dispatch(action(from: arguments))
    }

    /// `flux.dispatch(name)` with a name the resolver gave `id` before (found by `flux_keyedtrampoline`).
    func dispatch(resolved id: Int) throws -> Int32 {
        let prepared = try resolver.prepared(id)
        return try withExtendedLifetime(prepared) { try dispatch(prepared.action) } // borrowed, not copied
    }

    @inline(__always)
    private func dispatch(_ action: any Action) throws -> Int32 {
        try refuseWhileRendering("dispatch '\(action.name)'")
        try dispatcher.dispatch(action)
        if !effectsState.pending.isEmpty { runListeners() } // the `flux.on` listeners of what just committed
        return 0
    }

    /// The action `flux.dispatch`'s arguments describe: its name resolved, its payload table decoded.
    /// Whatever dispatches by name from a Lua value reads it here, with errors worded as `flux.dispatch`'s.
    func action(from arguments: LuaArguments) throws -> any Action {
        let lua = arguments.stack
        switch lua.type(at: 1) {
        case .string:
            let id = try resolver.resolve(lua, at: 1)
            switch lua.type(at: 2) {
            case .none, .nil:
                try arguments.expect(atMost: 2)
                return try resolver.action(id)
            case .table:
                try arguments.expect(atMost: 2)
                return try resolver.action(id, payloadAt: 2, on: lua)
            case let other:
                throw arguments.error(2, "payload table expected, got \(other.name)")
            }
        case .table:
            try arguments.expect(atMost: 1)
            guard lua.rawGet("type", from: 1) == .string else {
                throw arguments.error(1, "field 'type' must name an action, got \(lua.type(at: -1).name)")
            }
            let id = try resolver.resolve(lua, at: -1)
            lua.pop()
            return try resolver.action(id, payloadAt: 1, on: lua)
        case let other:
            throw arguments.error(1, "action name or table expected, got \(other.name)")
        }
    }

    /// A view provider is a pure function of its store's state: what it would change is refused.
    func refuseWhileRendering(_ what: @autoclosure () -> String) throws {
        guard rendering == 0 else { throw FluxScriptError("cannot \(what()) while a view is being rendered") }
    }

    /// `flux.group(label, fn)` → what `fn` returns; what `fn` dispatches is one undo step.
    func group(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        let label = try arguments.name(1, "label")
        let body = try arguments.function(2)
        // All or nothing: when `body` raises, what it dispatched is rolled back.
        let results = try dispatcher.group(label) {
            try lua.call(body, read: { lua, results in results.map { lua.ref(at: $0) } })
        }
        if !effectsState.pending.isEmpty { runListeners() } // the group committed: its actions' listeners
        try lua.ensureSpace(Int32(results.count))
        for result in results { lua.push(result) }
        return Int32(results.count)
    }

    /// `flux.undo()` → whether there was a step to undo.
    func undo(_ arguments: LuaArguments) throws -> Int32 {
        try arguments.expect(atMost: 0)
        try refuseWhileRendering("undo or redo")
        arguments.stack.push(try dispatcher.undo())
        return 1
    }

    /// `flux.redo()` → whether there was a step to redo.
    func redo(_ arguments: LuaArguments) throws -> Int32 {
        try arguments.expect(atMost: 0)
        try refuseWhileRendering("undo or redo")
        arguments.stack.push(try dispatcher.redo())
        return 1
    }
}
