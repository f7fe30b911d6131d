import Foundation
import Flux

/// A Lua plugin: a `.lua` file, or a folder with an `init.lua` whose other modules it can `require`.
public struct Plugin: Equatable, Sendable {
    /// The plugin's name: the file's name without `.lua`, or the folder's name.
    public let name: String
    /// The file that is run: the `.lua` file, or the folder's `init.lua`.
    public let entry: String
    /// The folder a folder plugin's `require` looks in first.
    public let folder: String?
    /// The file that is run, as the path it was loaded by names it: what messages show.
    public let path: String
    /// What a folder's `manifest.lua` declares (name, version, dependencies, options), if it has one.
    public let manifest: PluginManifest?

    /// The plugin at `path` (a `.lua` file or a folder holding `init.lua`).
    ///
    /// - Throws: when `path` is neither.
    public init(at path: String) throws {
        guard !EscapedText.hasControlCharacters(path) else {
            throw FluxScriptError("cannot load \(EscapedText.escaped(path)): a plugin's path holds a control character; rename it")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FluxScriptError("no plugin at \(path)")
        }
        let url = URL(fileURLWithPath: path)
        if isDirectory.boolValue {
            let entry = url.appendingPathComponent("init.lua").path
            guard FileManager.default.fileExists(atPath: entry) else {
                throw FluxScriptError("plugin folder \(path) has no init.lua")
            }
            do {
                manifest = try PluginManifest.read(folder: url.path, defaultName: Name.normalized(url.lastPathComponent))
            } catch {
                throw FluxScriptError(error.message)
            }
            self.name = manifest?.name ?? Name.normalized(url.lastPathComponent)
            self.entry = entry
            self.folder = url.path
            self.path = (path as NSString).appendingPathComponent("init.lua")
        } else {
            self.name = Name.normalized(url.deletingPathExtension().lastPathComponent)
            self.entry = url.path
            self.folder = nil
            self.path = path
            self.manifest = nil
        }
    }

    /// The file that is run, wherever the path points: symlinks resolved, `.` and `..` gone.
    var file: String { URL(fileURLWithPath: entry).standardizedFileURL.resolvingSymlinksInPath().path }

    /// Who owns what the plugin registers.
    public var owner: Owner { .plugin(name: name, file: path) }
}

extension FluxHost {
    /// Loads the plugin at `path`: runs its file as one transaction (``reload(_:)``).
    ///
    /// - Throws: the load error, with file and line; the plugin is still listed, so it can be reloaded
    ///   once fixed, and nothing it registered before the error stays.
    public func loadPlugin(at path: String) throws {
        try loadPlugin(try Plugin(at: path))
    }

    /// `unknown plugin 'tood': did you mean 'todo'? (loaded: todo)`.
    public static func unknownPlugin(_ name: String, loaded: [String]) -> String {
        "unknown plugin '\(name)'" + (NameSuggestion.didYouMean(name, in: loaded).map { ": " + $0 } ?? "")
            + " (loaded: \(loaded.isEmpty ? "none" : loaded.joined(separator: ", ")))"
    }

    /// Unloads the plugin called `name`: its stores, views and actions go (dispatching one of its actions
    /// is `unknown action`), its subscriptions end, and it is no longer listed.
    ///
    /// - Parameter dependants: Whether the plugins that require it (directly or not) are unloaded too,
    ///   first; without it, a plugin others require is not unloaded.
    /// - Returns: the plugins unloaded, `name` last.
    /// - Throws: when no plugin has that name, when its file is running now (a plugin's file cannot unload
    ///   itself halfway; its callbacks — a subscriber, a timer, a view's action — may), or when others
    ///   require it and `dependants` is false.
    @discardableResult
    public func unloadPlugin(named name: String, dependants: Bool = false) throws -> [String] {
        guard let plugin = plugins.first(where: { $0.name == name }) else {
            throw FluxScriptError(Self.unknownPlugin(name, loaded: plugins.map(\.name)))
        }
        guard !pluginsRunning.contains(name) else { throw FluxScriptError("plugin \(name) is running: it cannot be unloaded now") }
        let needing = self.dependants(of: name)
        if !needing.isEmpty {
            guard dependants else {
                throw FluxScriptError("plugin \(name) is required by \(needing.joined(separator: ", ")): unload \(needing.count == 1 ? "it" : "them") first, or use :unload! \(name) to unload \(needing.count == 1 ? "it" : "them") too")
            }
            for other in needing where plugins.contains(where: { $0.name == other }) { try unloadPlugin(named: other, dependants: true) }
        }
        // A run that defines nothing, replacing the last one: everything the plugin owned goes.
        PluginRun().replace(PluginRun.Snapshot(of: plugin.owner, in: self), in: self)
        endEffects(of: plugin.owner)
        plugins.removeAll { $0 == plugin }
        pluginErrors[name] = nil
        pluginEnvironments[name] = nil
        removeExtras(of: plugin)
        unwatchPlugin(named: name)
        fire("plugin_unloaded", name)
        return needing + [name]
    }

    /// Loads every plugin in `directory` (its `.lua` files and folders with `init.lua`), dependencies
    /// first, else in name order (``loadPlugins(in:settled:)-([String],_)``).
    @discardableResult
    public func loadPlugins(in directory: String, settled: () -> Void = {}) -> Int {
        loadPlugins(in: [directory], settled: settled)
    }

    /// Runs a plugin's file afresh, with a fresh cache of its own modules, as one transaction.
    ///
    /// When the run succeeds, what it defines replaces what the last run defined (stores keep their
    /// state), what it no longer defines is unregistered, and the last run's subscriptions end. When it
    /// fails, every store, view, action and subscription of the plugin is as it was before, and the
    /// error (with file and line) is thrown and kept for `:plugins`.
    public func reload(_ plugin: Plugin) throws {
        var loaded = false
        // After the owner is put back: the handlers run as themselves, not as this plugin.
        defer { if loaded { fire("plugin_loaded", plugin.name) } }
        let before = PluginRun.Snapshot(of: plugin.owner, in: self)
        let effectsBefore = Set(effects.live(ownedBy: plugin.owner.effectOwner).map(\.id))
        let outerOwner = runningOwner, outerRun = pluginRun, outerRunning = pluginsRunning
        runningOwner = plugin.owner
        pluginRun = PluginRun(firstSubscription: nextSubscriptionNumber)
        pluginsRunning.insert(plugin.name)
        defer {
            runningOwner = outerOwner
            pluginRun = outerRun
            pluginsRunning = outerRunning
        }
        do {
            try beginExtras(of: plugin)
            let (environment, export) = try runPluginFile(plugin)
            pluginRun?.replace(before, in: self)
            pluginEnvironments[plugin.name] = environment
            commitExtras(of: plugin, export: export)
            // The last run's timers, processes, watches and listeners end; the new run's go on.
            for effect in effects.live(ownedBy: plugin.owner.effectOwner) where effectsBefore.contains(effect.id) { effect.cancel() }
            effectsState.listeners.removeAll { !$0.effect.isActive }
            pluginErrors[plugin.name] = nil
            loaded = true
        } catch {
            discardExtras(of: plugin)
            before.restore(in: self)
            endEffects(of: plugin.owner, except: effectsBefore) // what the failed run started goes with it
            let error = Self.located(error)
            pluginErrors[plugin.name] = Self.describe(error)
            throw error
        }
    }

    /// A plugin's load error whose message does not say where it was raised (an error object that is
    /// not a string, `error(message, 0)`), led by the file and line of the innermost Lua frame of its
    /// traceback: `plugins/p1.lua:4: (error object is a table value)`.
    private static func located(_ error: any Error) -> any Error {
        guard var error = error as? LuaError, let traceback = error.traceback,
              error.message.firstMatch(of: #/^[^\n]*?:\d+: /#) == nil,
              let frame = traceback.firstMatch(of: #/\n\t(?!\[C\]|plugin loader:)([^\n]+?:\d+):/#) else { return error }
        error.message = frame.output.1 + ": " + error.message
        return error
    }

    /// Runs the plugin's file in a new global environment of its own; returns that environment and what
    /// the file returned (its API), if anything.
    private func runPluginFile(_ plugin: Plugin) throws -> (environment: LuaRef, export: LuaRef?) {
        guard let pluginLoader else { throw FluxScriptError("cannot run plugin \(plugin.name): the plugin loader did not start") }
        let source = try Self.readSource(plugin.entry)
        let prepared = try vm.call(pluginLoader, results: 2, arguments: { lua in
            if let folder = plugin.folder { lua.push(folder) } else { lua.pushNil() }
            lua.push(source)
            lua.push("@" + plugin.path)
            pushOwnedFunctions(of: plugin.owner, on: lua)
        }) { lua, results -> Result<(chunk: LuaRef, environment: LuaRef), LuaError> in
            guard lua.isTruthy(at: results.lowerBound) else {
                return .failure(LuaError(kind: .syntax, message: lua.string(at: results.lowerBound + 1) ?? "syntax error"))
            }
            return .success((lua.ref(at: results.lowerBound), lua.ref(at: results.lowerBound + 1)))
        }.get()
        // Run by the host, not the loader: a traceback shows the plugin's frames, none of the loader's, and
        // a file that does not compile is a syntax error with none at all.
        let export = try vm.call(prepared.chunk, results: 1) { lua, results in
            lua.isNil(at: results.lowerBound) ? nil : lua.ref(at: results.lowerBound)
        }
        return (prepared.environment, export)
    }

    /// Starts the Lua side of plugins (``PluginLoader``).
    func installPluginLoader() {
        guard let functions = try? vm.call(vm.load(PluginLoader.source, chunkName: "=plugin loader"), results: 1, arguments: { lua in
            pushPluginLookup(on: lua)
        }, read: { lua, results in
            lua.ref(at: results.lowerBound)
        }) else { return }
        let lua = vm.stack
        let top = lua.top
        defer { lua.top = top }
        lua.push(functions)
        _ = lua.rawGet("prepare", from: -1)
        pluginLoader = lua.ref(at: -1)
        lua.pop()
        _ = lua.rawGet("readonly", from: -1)
        pluginReadOnly = lua.ref(at: -1)
    }
}
