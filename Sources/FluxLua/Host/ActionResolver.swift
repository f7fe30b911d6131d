import Flux

/// Turns the action names scripts pass to `flux.dispatch` into actions, resolving each name once.
///
/// Names map to small integers in a Lua table, so a repeated `flux.dispatch("counter.increment")`
/// costs one raw table lookup of an interned string, not a Swift string and a dictionary lookup. An
/// action dispatched without a payload is decoded once and reused: actions are values.
final class ActionResolver {
    private struct Entry {
        let name: String
        var withoutPayload: PreparedAction?
    }

    /// A payload-less action made once. A class, so a dispatch borrows the action from it instead of
    /// copying it out of the list.
    final class PreparedAction {
        let action: any Action

        init(_ action: any Action) {
            self.action = action
        }
    }

    private let dispatcher: Dispatcher
    /// Each name resolved so far → its id; `flux.dispatch` looks a name up here in C.
    let names: LuaRef
    /// By id. Changed only through ``changeEntries(_:)``, so that no access to it spans a call.
    private var entries: [Entry] = []

    /// Changes `entries` swapped out into a local and back: the accesses to the list are two moves,
    /// and what the change allocates or releases happens between them. With no access that may nest
    /// another, the compiler leaves out the list's run-time exclusivity check, which every
    /// `flux.dispatch` would pay for reading it.
    private func changeEntries<T>(_ change: (inout [Entry]) throws -> T) rethrows -> T {
        var list: [Entry] = []
        swap(&list, &entries)
        defer { swap(&list, &entries) }
        return try change(&list)
    }

    init(dispatcher: Dispatcher, stack: LuaStack) {
        self.dispatcher = dispatcher
        stack.pushTable()
        names = stack.ref(at: -1)
        stack.pop()
    }

    /// The id of the action named by the string at `index`.
    ///
    /// - Throws: ``ActionError/unknownAction(_:)``, or ``InvalidNameError``.
    func resolve(_ lua: LuaStack, at index: Int32) throws -> Int {
        let index = lua.absoluteIndex(index)
        lua.push(names)                         // [.., names]
        lua.pushCopy(of: index)                 // [.., names, name]
        if lua.rawGet(from: -2) == .number, let id = lua.integer(at: -1) {
            lua.pop(2)
            return id
        }
        lua.pop()                               // [.., names]
        let name: String?
        do {
            name = try lua.name(at: index)
        } catch {
            lua.pop()
            throw error
        }
        guard let name, dispatcher.registry.contains(name) else {
            lua.pop()
            throw ActionError.unknownAction(lua.string(at: index) ?? "?", among: dispatcher.registry.names)
        }
        let id = changeEntries { entries in
            entries.append(Entry(name: name))
            return entries.count - 1
        }
        lua.pushCopy(of: index)                 // [.., names, name]
        lua.push(id)                            // [.., names, name, id]
        lua.rawSet(in: -3)                      // [.., names]
        lua.pop()
        return id
    }

    /// The action `id` with no payload.
    func action(_ id: Int) throws -> any Action {
        try prepared(id).action
    }

    /// The action `id` with no payload, as it is kept for every dispatch of it.
    ///
    /// - Throws: ``ActionError/unknownAction(_:)`` for an id this resolver never gave.
    @inline(__always)
    func prepared(_ id: Int) throws -> PreparedAction {
        if entries.indices.contains(id), let prepared = entries[id].withoutPayload { return prepared }
        return try prepare(id)
    }

    /// Makes the action `id` with no payload, the first time it is dispatched (or after a registry change).
    @inline(never)
    private func prepare(_ id: Int) throws -> PreparedAction {
        guard entries.indices.contains(id) else { throw ActionError.unknownAction("#\(id)") }
        let prepared = try PreparedAction(dispatcher.registry.decode(entries[id].name, json: nil))
        changeEntries { $0[id].withoutPayload = prepared }
        return prepared
    }

    /// The action `id` decoded from the payload table at `index`.
    func action(_ id: Int, payloadAt index: Int32, on lua: LuaStack) throws -> any Action {
        var decoder = LuaDecoder()
        decoder.rejectsUnknownKeys = true     // a misspelt field is an error, not a silent default
        decoder.allowedExtraKeys = ["type"]   // flux.dispatch{type = name, …}
        for (key, value) in DecodedAction.userInfo(registry: dispatcher.registry, name: entries[id].name) {
            decoder.userInfo[key] = value
        }
        do {
            return try decoder.decode(DecodedAction.self, from: lua, at: index).action
        } catch let error as DecodingError {
            // Raised past the registry's own decoding: a key the action did not read.
            throw ActionError.invalidPayload(action: entries[id].name, message: error.fieldMessage)
        }
    }

    /// Forgets the decoded payload-less actions: the registry changed what a name builds.
    func registryChanged() {
        changeEntries { entries in
            for index in entries.indices { entries[index].withoutPayload = nil }
        }
    }
}
