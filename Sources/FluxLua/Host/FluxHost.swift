import CFluxLua
import Flux
import FluxEffects
import FluxTable
import FluxViews
import Foundation

/// Hosts Flux stores in a Lua VM: installs the `flux` module, through which scripts dispatch actions,
/// subscribe to stores, define stores and view providers, and render tables.
///
/// ```swift
/// let host = FluxHost(dispatcher: dispatcher)
/// host.views.register(ViewProvider(store: ticTacToe, render: TicTacToeViewProvider.tableViewModel(for:)))
/// try host.run(#"flux.dispatch("ticTacToe.placeToken", {index = 4})"#)
/// print(try host.render(view: "ticTacToe"))
/// ```
///
/// A host and its VM are used from one thread. Errors a script cannot catch (a subscriber that
/// fails after its dispatch succeeded, a plugin that fails to load) go to ``report``.
public final class FluxHost {
    /// The Lua VM scripts run in.
    public let vm: LuaVM
    /// The dispatcher every store is registered with.
    public let dispatcher: Dispatcher
    /// The view providers, Swift and Lua.
    public let views = ViewRegistry()
    /// Who owns each view: the views scripts defined have their owner, the rest are Swift's.
    let viewOwners: ViewOwners
    /// How `flux.render` lays out tables.
    public var renderOptions = RenderOptions(width: 80, color: false, unicode: true)
    /// Where errors nobody can catch are written (a subscriber's, a plugin's); standard error by default.
    /// Unchecked: one thread, and telling subscribers reads it on every change (for their errors).
    public var report: (String) -> Void = StandardError.write(line:)
    /// The plugins loaded so far, in load order.
    public internal(set) var plugins: [Plugin] = []

    /// The stack of the Lua thread running now: a coroutine's while a Swift function it called runs.
    var activeStack: LuaStack
    /// Resolves the action names scripts dispatch. A constant: reading it costs no retain.
    let resolver: ActionResolver
    /// Calls a Lua store's handler with a draft of its state, and freezes what it returns (`flux_pushinvoke`).
    var invoke: LuaRef!
    /// Freezes a table a script made into a state (`flux_pushfreeze`).
    var freeze: LuaRef!
    /// The texts of published tables a session saved, made at the first save (``LuaStateTextCache``).
    var stateTextCache: LuaStateTextCache?
    /// The Swift stores' states that Lua views show.
    let stateProxies: StateProxies
    /// The Lua subscribers of each store that has any, by store.
    var storeSubscribers: [ObjectIdentifier: LuaSubscribers] = [:]
    var subscriptionType = LuaObjectType<LuaSubscription>("flux.subscription")
    /// Every subscription made by `flux.subscribe` and `flux.watch` and not cancelled yet.
    var subscriptions: [ObjectIdentifier: LuaSubscription] = [:]
    /// The number the next subscription gets: `flux.subscriptions()` lists them in the order they were made.
    var nextSubscriptionNumber = 1
    /// Who owns what is registered now: the plugin whose file is running, else the session.
    var runningOwner = Owner.session
    /// What the plugin running now has defined so far, if one is running.
    var pluginRun: PluginRun?
    /// The plugins whose file is running now (loading or reloading): these cannot be unloaded halfway.
    var pluginsRunning: Set<String> = []
    /// The action names Lua stores added to the registry: they go when no store handles them any more.
    var luaActions: Set<String> = []
    /// Which Lua stores handle and declare each action.
    var actionIndex = LuaActionIndex()
    /// Each plugin's last load or reload error, by plugin name (none after a success).
    public internal(set) var pluginErrors: [String: String] = [:]
    /// Prepares a plugin's file in a global environment of its own (``PluginLoader``).
    var pluginLoader: LuaRef?
    /// Makes a read-only view of a table (``PluginLoader``): what `flux.globals` hands out.
    var pluginReadOnly: LuaRef?
    /// Each loaded plugin's global environment, by plugin name: the one its last successful run made.
    var pluginEnvironments: [String: LuaRef] = [:]
    /// The watches of views, which follow their view's redefinitions (``ViewFollower``).
    var viewFollowers: [ObjectIdentifier: ViewFollower] = [:]
    /// How each Lua store's name was spelled when it was defined (its bytes): another spelling of the
    /// same name is refused.
    var storeSpellings: [String: [UInt8]] = [:]
    /// What the Lua handlers of the action being dispatched changed besides states (``DispatchEffects``).
    var dispatchEffects: DispatchEffects?
    /// The message and traceback of the last Lua store handler that failed inside a `flux` call.
    var lastHandlerFailure: (message: String, traceback: String)?
    /// The host as what may outlive it reaches it; cleared as the host goes.
    let reference = HostReference()
    /// Counts repeats of the errors nobody can catch.
    let errorThrottle = ErrorThrottle()
    /// How many Lua view providers are running: while one is, dispatch, undo and redo are refused.
    var rendering = 0
    /// Plugins' commands, event handlers, APIs and options (``PluginExtras``).
    let pluginExtras = PluginExtras()
    /// The effects runtime and the `flux.on` listeners (`Module/FluxHost+Effects.swift`).
    let effectsState: HostEffects

    /// A host for `dispatcher`'s stores, with the `flux` module installed in `vm` (a global, and
    /// `require "flux"`).
    ///
    /// - Parameter effects: The runtime `flux.after`, `flux.spawn` and the other effects run on.
    public init(dispatcher: Dispatcher, vm: LuaVM = LuaVM(), effects: Effects = Effects()) {
        self.vm = vm
        self.dispatcher = dispatcher
        effectsState = HostEffects(runtime: effects)
        self.activeStack = vm.stack
        resolver = ActionResolver(dispatcher: dispatcher, stack: vm.stack)
        stateProxies = StateProxies(on: vm.stack)
        viewOwners = ViewOwners(of: views)
        reference.host = self
        installModule()
        installOwnedFunctions()
        installPluginLoader()
        // After the loader took the VM's own `require`: a plugin's `require` asks for APIs itself.
        installPluginRequire()
        // A finalizer's error is reported like a subscriber's; once the host is gone (the state closing),
        // on standard error.
        vm.onWarning = { [reference] message in
            if let host = reference.host { host.report(message) } else { StandardError.write(line: message) }
        }
        // An action a subscriber queued fails after the script that caused it went on: nobody can catch it.
        // The host hands the dispatcher back its default on deinit.
        dispatcher.onFollowUpError = { [reference] action, error in
            reference.host?.report(error, heading: "follow-up '\(action.name)' failed", source: "follow-up '\(action.name)'", callback: "follow-up \(action.name)")
        }
    }

    /// The dispatcher may outlive its host: nothing it keeps may call into the host, or its VM, after this.
    deinit {
        reference.host = nil
        effects.endAll(waiting: 0) // no callback runs once the host is gone, and no child outlives it
        for subscription in subscriptions.values {
            subscription.onCancel = nil
            subscription.cancel()
        }
        for subscribers in storeSubscribers.values { subscribers.observer?.cancel() }
        for store in dispatcher.stores where store is LuaStore {
            if let token = dispatcher.token(named: store.name) { try? dispatcher.unregister(token) }
        }
        dispatcher.onFollowUpError = Dispatcher.writeFollowUpError
    }

    // MARK: Running scripts

    /// Runs Lua source; returns its results.
    @discardableResult
    public func run(_ source: String, chunkName: String = "chunk") throws -> [LuaValue] {
        try vm.run(source, chunkName: chunkName)
    }

    /// Runs a Lua file; `chunkName` in messages is its path. Its bytes reach Lua as they are (a string
    /// literal may hold bytes that are not UTF-8, as with `lua5.4 file.lua`).
    @discardableResult
    public func runFile(_ path: String) throws -> [LuaValue] {
        try vm.run(bytes: try Self.readSourceBytes(path), chunkName: "@" + path)
    }

    /// The text of a plugin or log file, with a clear error for a missing file, a folder or a binary file.
    ///
    /// - Throws: ``FluxScriptError`` also for bytes that are not UTF-8 text.
    public static func readSource(_ path: String) throws -> String {
        try source(try readData(path), from: path)
    }

    /// The bytes of a script, as Lua compiles them: any bytes but zero (a binary file), its `#!` line a comment.
    public static func readSourceBytes(_ path: String) throws -> [UInt8] {
        try sourceBytes(try readData(path), from: path)
    }

    /// What the file at `path` holds, with a clear error for a missing file or a folder.
    private static func readData(_ path: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FluxScriptError("cannot open \(path): no such file")
        }
        guard !isDirectory.boolValue else { throw FluxScriptError("cannot read \(path): it is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FluxScriptError("cannot read \(path)")
        }
        return data
    }

    /// The Lua source in `data`, read from `path` (`stdin` for standard input): text, its `#!` line a comment.
    ///
    /// - Throws: ``FluxScriptError`` for bytes that are not UTF-8 text.
    public static func source(_ data: Data, from path: String) throws -> String {
        guard let text = String(validating: try sourceBytes(data, from: path), as: UTF8.self) else {
            throw FluxScriptError("cannot read \(path): not a text file")
        }
        return text
    }

    /// The Lua source in `data`, read from `path` (`stdin` for standard input), as bytes: Lua source is
    /// bytes, and a string literal keeps those that are not UTF-8. Its `#!` line becomes a comment.
    ///
    /// - Throws: ``FluxScriptError`` for a zero byte (a binary file, not a script).
    public static func sourceBytes(_ data: Data, from path: String) throws -> [UInt8] {
        guard !data.contains(0) else { throw FluxScriptError("cannot read \(path): not a text file") }
        return data.first == UInt8(ascii: "#") ? Array("--".utf8) + data : Array(data) // a #! line, as lua.c skips it
    }

    // MARK: Stores and views

    /// The store called `name`.
    public func store(named name: String) throws -> any StoreProtocol {
        guard let store = dispatcher.store(named: name) else {
            throw FluxHostError.unknownStore(name, known: dispatcher.stores.map(\.name))
        }
        return store
    }

    /// The rendered table of the view `name`, laid out with ``renderOptions`` (or `options`).
    public func render(view name: String, options: RenderOptions? = nil) throws -> String {
        TableRenderer(options: options ?? renderOptions).render(try views.model(of: name))
    }

    /// Calls `onChange` with the diff of the view `name`'s model after every change of its store; a model
    /// that fails to build is reported.
    /// The watch follows the view: defined again, it diffs the new provider's models; gone, it ends.
    public func watch(view name: String, _ onChange: @escaping (TableDiff, TableViewModel, TableViewModel) -> Void) throws -> StoreSubscription {
        let follower = try follow(view: name, onChange)
        return StoreSubscription { follower.end() }
    }

    // MARK: Errors nobody can catch

    /// Reports an error raised by `callback` (any text that tells callbacks apart) of `source`: in full,
    /// headed by `heading`, the first time since the last ``flushErrors()``, else only counted.
    /// Out of line: inlined into a loop that calls Lua (telling subscribers), its read of ``report`` would
    /// be hoisted out of the loop, a run-time checked access on every change whether or not one fails.
    @inline(never)
    func report(_ error: any Error, heading: String, source: String, callback: String) {
        let message = Self.message(of: error)
        let place = ErrorThrottle.place(message: message, traceback: (error as? LuaError)?.traceback)
        guard errorThrottle.note(source: source, callback: callback, place: place, message: message) else { return }
        report("\(heading): \(describe(error))")
    }

    /// Writes one summary line for each error counted and not shown since the last flush
    /// (`… the same error 9,999 more times`): the shell calls it when a line or a script ends.
    public func flushErrors() {
        for line in errorThrottle.flush() { report(line) }
    }

    /// The distinct errors nobody could catch, oldest first (the last 100 at least), with how often each
    /// was raised: what `:errors` lists.
    public var recentErrors: [(source: String, message: String, count: Int)] {
        errorThrottle.records.map { ($0.source, $0.message, $0.count) }
    }

    /// An error's message without its traceback.
    static func message(of error: any Error) -> String {
        if let error = error as? LuaError { return error.message }
        return String(describing: error)
    }

    // MARK: Values crossing into Lua

    /// [..] -> [.., state view]. A state the store `storeName` published, as a read-only table: for a Lua
    /// store, the one view it keeps of its state.
    func pushState(_ state: any Encodable, of storeName: String, on lua: LuaStack) throws {
        if let state = state as? LuaTableState {
            if let store = state.store {
                try store.pushView(of: state.table, on: lua)
            } else {
                try lua.ensureSpace(4)
                lua.push(state.table)
                flux_pushview(lua.state)
            }
        } else {
            stateProxies.push(state, of: storeName, on: lua)
        }
    }

    /// [.., table] -> [.., view]. For a table no script holds: one the host has just made.
    func wrapReadOnly(_ lua: LuaStack) throws {
        try lua.ensureSpace(4)
        flux_pushview(lua.state)
    }

    /// [..] -> [.., action table]. An action as a Lua store's handler sees it: its payload, plus `type`
    /// (the action's name, or the Lua string `type` refers to).
    func pushAction(_ action: any Action, type: LuaRef? = nil, on lua: LuaStack) throws {
        if let action = action as? LuaAction {
            if case let .table(fields) = action.payload, fields.isEmpty {
                lua.pushTable(fieldCapacity: 1) // room for `type`: setting it allocates nothing more
            } else {
                lua.push(action.payload)
            }
            if lua.type(at: -1) != .table {
                lua.pop()
                lua.pushTable()
            }
        } else {
            try LuaEncoder().push(action, to: lua)
            if lua.type(at: -1) != .table {
                lua.pop()
                lua.pushTable()
            }
        }
        if let type { lua.push(type) } else { lua.push(action.name) }
        lua_setfield(lua.state, -2, "type") // a table just made: no metamethod; the key's C string is cached
    }

    /// An error's message with its traceback; for a script whose `flux.dispatch` failed in a Lua store's
    /// handler, the handler's own traceback too (its file and line, and the frames inside it).
    public func describe(_ error: any Error) -> String {
        let text = Self.describe(error)
        guard let error = error as? LuaError, let failure = lastHandlerFailure,
              error.message.hasSuffix(failure.message) else { return text }
        return text + "\nin the handler: " + failure.traceback
    }

    /// An error's message, with the traceback of a Lua error (or of a Lua store handler's).
    public static func describe(_ error: any Error) -> String {
        if let error = error as? LuaError, let traceback = error.traceback {
            return error.message + "\n" + traceback
        }
        if let error = error as? FluxScriptError, let traceback = error.traceback {
            return error.description + "\n" + traceback
        }
        if case let .storeFailed(_, _, underlying) = error as? DispatcherError,
           let scriptError = underlying as? FluxScriptError, let traceback = scriptError.traceback {
            return "\(error)\n\(traceback)"
        }
        return String(describing: error)
    }
}
