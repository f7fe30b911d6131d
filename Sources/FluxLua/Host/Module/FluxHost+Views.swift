import Flux
import FluxTable
import FluxViews

/// `flux.view`, `flux.views`, `flux.model`, `flux.render` and `flux.watch`: the tables views make of
/// stores' states.
extension FluxHost {
    /// The fields `flux.view(name, {…})` reads; any other is refused (a misspelled one would be lost silently).
    static var viewFields: [String] {
        [
            "store",
            "render",
            "keys",
        ]
    }

    /// `flux.view(name, {store = …, render = function(state) return model end})`.
    func defineView(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        let name = try arguments.name(1, "view name")
        try Name.checkPrintable(name)
        try arguments.expect(.table, at: 2)
        try arguments.rejectUnknownKeys(at: 2, allowed: Self.viewFields)
        guard lua.rawGet("store", from: 2) == .string, let storeName = lua.string(at: -1) else {
            throw arguments.error(2, "field 'store' must name a store, got \(lua.type(at: -1).name)")
        }
        lua.pop()
        _ = try store(named: storeName)
        guard lua.rawGet("render", from: 2) == .function else {
            throw arguments.error(2, "field 'render' must be a function, got \(lua.type(at: -1).name)")
        }
        let render = lua.ref(at: -1)
        lua.pop()
        let keys = try viewKeys(arguments, view: name)
        let replaced = views.provider(named: name)
        // Sections declared with `build` are kept from one render to the next (ViewSectionCache).
        let sections = ViewSectionCache()
        var provider = ViewProvider(name: name, store: storeName, find: { [reference] in
            let host = try reference.require()
            return try host.store(named: storeName)
        }) { [reference, sections] state in
            let host = try reference.require()
            let lua = host.activeStack
            host.rendering += 1
            defer { host.rendering -= 1 }
            return try lua.call(render, results: 1, arguments: { lua in
                try host.pushState(state, of: storeName, on: lua)
            }, read: { lua, results in
                guard lua.type(at: results.lowerBound) == .table else {
                    throw FluxScriptError("view '\(name)': render must return a table, got \(lua.type(at: results.lowerBound).name)")
                }
                return try sections.model(at: results.lowerBound, on: lua)
            })
        }
        provider.keys = keys
        try viewOwners.register(provider, owner: runningOwner)
        // A handler's view goes with its action when the dispatch fails.
        if dispatcher.isDispatching {
            let owner = runningOwner
            noteDispatchEffect { [reference] in
                guard let host = reference.host else { return }
                if let replaced { try? host.viewOwners.register(replaced, owner: owner) } else { host.viewOwners.unregister(named: name) }
            }
        }
        pluginRun?.views.insert(name)
        return 0
    }

    /// The view definition's `keys = {d = "issues.close"}` (none when missing): each a key and the
    /// action it dispatches in a live view, every action known now.
    private func viewKeys(_ arguments: LuaArguments, view: String) throws -> [String: String] {
        let lua = arguments.stack
        defer { lua.pop() }
        switch lua.rawGet("keys", from: 2) {
        case .nil: return [:]
        case .table: break
        case let other: throw arguments.error(2, "field 'keys' must be a table of key = action name, got \(other.name)")
        }
        let keys = try lua.decode([String: String].self, at: -1, root: "keys")
        for (key, action) in keys.sorted(by: { $0.key < $1.key }) {
            guard !key.isEmpty else { throw arguments.error(2, "field 'keys' has an empty key") }
            do {
                _ = try actionID(named: action, on: lua)
            } catch {
                throw arguments.error(2, "view '\(view)': key '\(key)' names an unknown action '\(action)' (:actions lists them)")
            }
        }
        return keys
    }

    /// `flux.views()` → the views' names.
    func listViews(_ arguments: LuaArguments) throws -> Int32 {
        try arguments.expect(atMost: 0)
        try LuaEncoder().push(views.names, to: arguments.stack)
        return 1
    }

    /// `flux.model(view)` → the view's table model, as a Lua table.
    func readModel(_ arguments: LuaArguments) throws -> Int32 {
        try arguments.expect(atMost: 1)
        let model = try views.model(of: arguments.name(1, "view name"))
        try LuaEncoder().push(model, to: arguments.stack)
        return 1
    }

    /// `flux.render(view, width?)` → the view's table as text, without color.
    func renderView(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        var options = renderOptions
        options.color = false
        if !lua.isNil(at: 2) {
            guard let width = lua.integer(at: 2), width > 0 else {
                throw arguments.error(2, "width must be a positive integer, got \(lua.type(at: 2).name)")
            }
            options.width = width
        }
        lua.push(try render(view: arguments.name(1, "view name"), options: options))
        return 1
    }

    /// `flux.watch(view, fn)` → subscription; `fn(diff)` after every change of the view's model, with
    /// `diff.text` the patch and counts of inserted, deleted, updated and moved rows and sections.
    func watch(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        let view = try arguments.name(1, "view name")
        let function = try arguments.function(2)
        let subscription = newSubscription(of: view)
        subscription.isWatch = true
        var options = renderOptions
        options.color = false
        let follower = try follow(view: view) { [reference] changes, old, new in
            guard let host = reference.host else { return }
            let summary = WatchSummary(changes, text: PatchRenderer(options: options).render(changes, from: old, to: new))
            do {
                try host.activeStack.call(function, results: 0, arguments: { lua in
                    try LuaEncoder().push(summary, to: lua)
                }, read: { _, _ in })
            } catch {
                host.report(error, heading: "error in watcher of '\(view)'", source: "watcher of '\(view)'",
                       callback: "subscription \(subscription.number)")
            }
        }
        subscription.subscription = StoreSubscription { follower.end() }
        let ended = follower.onEnd
        follower.onEnd = { [weak subscription] in // the view went: the subscription is no longer active
            ended?()
            subscription?.cancel()
        }
        keep(subscription)
        noteMadeDuringDispatch(subscription)
        lua.push(subscription, as: subscriptionType)
        return 1
    }
}
