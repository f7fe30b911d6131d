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

    /// The plugin at `path` (a `.lua` file or a folder holding `init.lua`).
    ///
    /// - Throws: when `path` is neither.
    public init(at path: String) throws {
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
            self.name = Name.normalized(url.lastPathComponent)
            self.entry = entry
            self.folder = url.path
            self.path = (path as NSString).appendingPathComponent("init.lua")
        } else {
            self.name = Name.normalized(url.deletingPathExtension().lastPathComponent)
            self.entry = url.path
            self.folder = nil
            self.path = path
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
        let plugin = try Plugin(at: path)
        // The same file by another spelling (`./p1.lua`, a symlink) is the plugin loaded already, under
        // the path it was first loaded by: what it owns is named by that path.
        if let loaded = plugins.first(where: { $0.name == plugin.name }) {
            guard loaded.file == plugin.file else {
                throw FluxScriptError("a plugin named '\(plugin.name)' is loaded already, from \(loaded.path)")
            }
            return try reload(loaded)
        }
        plugins.append(plugin)
        try reload(plugin)
    }

    /// `unknown plugin 'tood': did you mean 'todo'? (loaded: todo)`.
    public static func unknownPlugin(_ name: String, loaded: [String]) -> String {
        "unknown plugin '\(name)'" + (NameSuggestion.didYouMean(name, in: loaded).map { ": " + $0 } ?? "")
            + " (loaded: \(loaded.isEmpty ? "none" : loaded.joined(separator: ", ")))"
    }

    /// Unloads the plugin called `name`: its stores, views and actions go (dispatching one of its actions
    /// is `unknown action`), its subscriptions end, and it is no longer listed.
    ///
    /// - Throws: when no plugin has that name, or when it is running now (a plugin's file cannot unload
    ///   itself halfway).
    public func unloadPlugin(named name: String) throws {
        guard let plugin = plugins.first(where: { $0.name == name }) else {
            throw FluxScriptError(Self.unknownPlugin(name, loaded: plugins.map(\.name)))
        }
        guard runningOwner != plugin.owner else { throw FluxScriptError("plugin \(name) is running: it cannot be unloaded now") }
        // A run that defines nothing, replacing the last one: everything the plugin owned goes.
        PluginRun().replace(PluginRun.Snapshot(of: plugin.owner, in: self), in: self)
        plugins.removeAll { $0 == plugin }
        pluginErrors[name] = nil
    }

    /// Loads every plugin in `directory` (its `.lua` files and folders with `init.lua`), in name order.
    /// A plugin that fails is reported and does not stop the others.
    ///
    /// - Parameter settled: Called after each plugin, loaded or not: the shell takes the Ctrl-C that
    ///   stopped one there, so the next Ctrl-C stops the next plugin rather than ending the shell.
    /// - Returns: how many loaded without error.
    @discardableResult
    public func loadPlugins(in directory: String, settled: () -> Void = {}) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            report("cannot read plugin folder \(directory)")
            return 0
        }
        var loaded = 0
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            guard name.hasSuffix(".lua") || (exists && isDirectory.boolValue
                && FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("init.lua"))) else { continue }
            do {
                try loadPlugin(at: path)
                loaded += 1
            } catch {
                report("plugin \(name) failed to load: \(Self.describe(error))")
            }
            settled()
        }
        flushErrors()
        return loaded
    }

    /// Runs a plugin's file afresh, with a fresh cache of its own modules, as one transaction.
    ///
    /// When the run succeeds, what it defines replaces what the last run defined (stores keep their
    /// state), what it no longer defines is unregistered, and the last run's subscriptions end. When it
    /// fails, every store, view, action and subscription of the plugin is as it was before, and the
    /// error (with file and line) is thrown and kept for `:plugins`.
    public func reload(_ plugin: Plugin) throws {
        let before = PluginRun.Snapshot(of: plugin.owner, in: self)
        let outerOwner = runningOwner, outerRun = pluginRun
        runningOwner = plugin.owner
        pluginRun = PluginRun()
        defer {
            runningOwner = outerOwner
            pluginRun = outerRun
        }
        do {
            try runPluginFile(plugin)
            pluginRun?.replace(before, in: self)
            pluginErrors[plugin.name] = nil
        } catch {
            before.restore(in: self)
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

    private func runPluginFile(_ plugin: Plugin) throws {
        guard let pluginLoader else { throw FluxScriptError("cannot run plugin \(plugin.name): the plugin loader did not start") }
        let source = try Self.readSource(plugin.entry)
        let chunk = try vm.call(pluginLoader, results: 2, arguments: { lua in
            if let folder = plugin.folder { lua.push(folder) } else { lua.pushNil() }
            lua.push(source)
            lua.push("@" + plugin.path)
        }) { lua, results -> Result<LuaRef, LuaError> in
            guard lua.isTruthy(at: results.lowerBound) else {
                return .failure(LuaError(kind: .syntax, message: lua.string(at: results.lowerBound + 1) ?? "syntax error"))
            }
            return .success(lua.ref(at: results.lowerBound))
        }
        // Run by the host, not the loader: a traceback shows the plugin's frames, none of the loader's, and
        // a file that does not compile is a syntax error with none at all.
        try vm.call(chunk.get()) { _ in }
    }
}
