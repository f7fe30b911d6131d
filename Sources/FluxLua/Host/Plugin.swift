import Foundation

/// A Lua plugin: a `.lua` file, or a folder with an `init.lua` whose other modules it can `require`.
public struct Plugin: Equatable, Sendable {
    /// The plugin's name: the file's name without `.lua`, or the folder's name.
    public let name: String
    /// The file that is run: the `.lua` file, or the folder's `init.lua`.
    public let entry: String
    /// The folder added to `package.path` for a folder plugin.
    public let folder: String?

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
        } else {
            self.name = Name.normalized(url.deletingPathExtension().lastPathComponent)
            self.entry = url.path
            self.folder = nil
        }
    }
}

extension FluxHost {
    /// Loads the plugin at `path`: runs its file (after adding its folder to `package.path`).
    ///
    /// - Throws: the load error, with file and line; the plugin is still listed, so it can be reloaded
    ///   once fixed.
    public func loadPlugin(at path: String) throws {
        let plugin = try Plugin(at: path)
        if !plugins.contains(plugin) { plugins.append(plugin) }
        try run(plugin)
    }

    /// Loads every plugin in `directory` (its `.lua` files and folders with `init.lua`), in name order.
    /// A plugin that fails is reported and does not stop the others.
    ///
    /// - Returns: how many loaded without error.
    @discardableResult
    public func loadPlugins(in directory: String) -> Int {
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
        }
        return loaded
    }

    /// Runs a loaded plugin's file again; the stores it defines keep their state, and the subscriptions
    /// its last run made are cancelled (the new run makes its own).
    public func reload(_ plugin: Plugin) throws {
        for subscription in subscriptions.values where subscription.plugin == plugin.name {
            subscription.cancel()
        }
        try run(plugin)
    }

    private func run(_ plugin: Plugin) throws {
        if let folder = plugin.folder { try vm.addPackagePath(folder) }
        let outer = runningPlugin
        runningPlugin = plugin.name
        defer { runningPlugin = outer }
        try runFile(plugin.entry)
    }
}
