import Foundation

/// The order plugins load in: each after the plugins its manifest requires, whatever the names; a plugin
/// whose dependency is missing, of a version that does not satisfy, part of a cycle, or not loaded, is
/// refused with the chain named, and the others load.
extension FluxHost {
    /// Loads every plugin of `folders` (their `.lua` files and folders with `init.lua`): dependencies
    /// first, the rest in the order found (folder by folder, names in order). A plugin that fails or is
    /// refused is reported and does not stop the others; the plugins that require it do not load.
    ///
    /// - Parameter settled: Called after each plugin, loaded or not: the shell takes the Ctrl-C that
    ///   stopped one there, so the next Ctrl-C stops the next plugin rather than ending the shell.
    /// - Returns: how many loaded without error.
    @discardableResult
    public func loadPlugins(in folders: [String], settled: () -> Void = {}) -> Int {
        loadPlugins(findPlugins(in: folders), settled: settled)
    }

    /// The plugins of `folders`, read (manifests included) but not run: a plugin that cannot be read, or
    /// whose manifest name another plugin found before has, is reported and left out. Their manifests
    /// are known from now on, so `flux.configure` checks options against them before they load.
    public func findPlugins(in folders: [String]) -> [Plugin] {
        var found: [Plugin] = []
        for directory in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                report("cannot read plugin folder \(directory)")
                continue
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = (directory as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                guard name.hasSuffix(".lua") && !isDirectory.boolValue || (exists && isDirectory.boolValue
                    && FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("init.lua"))) else { continue }
                do {
                    let plugin = try Plugin(at: path)
                    if let first = found.first(where: { $0.name == plugin.name }) ?? plugins.first(where: { $0.name == plugin.name }),
                       first.file != plugin.file {
                        report("plugin \(name) not loaded: \(first.path) is named '\(plugin.name)' too; plugin names must differ (rename one in its manifest.lua)")
                        continue
                    }
                    found.append(plugin)
                    if let manifest = plugin.manifest { pluginExtras.knownManifests[manifest.name] = manifest }
                } catch {
                    report("plugin \(name) failed to load: \(Self.describe(error))")
                }
            }
        }
        return found
    }

    /// Loads `candidates` in dependency order (see ``loadPlugins(in:settled:)-([String],_)``).
    @discardableResult
    public func loadPlugins(_ candidates: [Plugin], settled: () -> Void = {}) -> Int {
        defer { flushErrors() }
        var loaded = 0
        for step in Self.order(candidates, loaded: plugins) {
            switch step {
            case let .refused(plugin, reason):
                pluginErrors[plugin.name] = reason
                report("plugin \(plugin.name) not loaded: \(reason)")
            case let .load(plugin):
                do {
                    try loadPlugin(plugin)
                    loaded += 1
                } catch {
                    report("plugin \((plugin.path as NSString).lastPathComponent == "init.lua" ? plugin.name : (plugin.path as NSString).lastPathComponent) failed to load: \(Self.describe(error))")
                }
                settled()
            }
        }
        return loaded
    }

    /// Loads a plugin already read, unless its dependencies are not all loaded.
    func loadPlugin(_ plugin: Plugin) throws {
        // The same file by another spelling (`./p1.lua`, a symlink) is the plugin loaded already, under
        // the path it was first loaded by: what it owns is named by that path.
        if let loaded = plugins.first(where: { $0.name == plugin.name }) {
            guard loaded.file == plugin.file else {
                throw FluxScriptError("a plugin named '\(plugin.name)' is loaded already, from \(loaded.path)")
            }
            return try reload(loaded)
        }
        try checkDependencies(of: plugin)
        plugins.append(plugin)
        try reload(plugin)
    }

    /// Refuses `plugin` unless every plugin its manifest requires is loaded, without error, at a version
    /// that satisfies it.
    func checkDependencies(of plugin: Plugin) throws {
        for requirement in plugin.manifest?.requires ?? [] {
            guard let dependency = plugins.first(where: { $0.name == requirement.name }) else {
                throw FluxScriptError("plugin \(plugin.name) requires \(requirement), which is not loaded (load it first)")
            }
            guard pluginErrors[dependency.name] == nil else {
                throw FluxScriptError("plugin \(plugin.name) requires \(requirement.name), which failed to load (fix it and :reload \(requirement.name))")
            }
            guard requirement.admits(dependency.manifest?.version) else {
                throw FluxScriptError("plugin \(plugin.name) requires \(requirement), but \(requirement.name) is \(dependency.manifest?.version.map { "version \($0)" } ?? "of no version (its manifest gives none)")")
            }
        }
    }

    /// The loaded plugins that require `name`, directly or through others, those loaded last first: the
    /// order they can be unloaded in.
    public func dependants(of name: String) -> [String] {
        var needing: Set<String> = [name]
        var changed = true
        while changed {
            changed = false
            for plugin in plugins where !needing.contains(plugin.name)
                && plugin.manifest?.requires.contains(where: { needing.contains($0.name) }) == true {
                needing.insert(plugin.name)
                changed = true
            }
        }
        return plugins.reversed().map(\.name).filter { $0 != name && needing.contains($0) }
    }

    /// One step of loading plugins.
    enum PluginStep {
        case load(Plugin)
        /// Not loaded: the reason names the chain (`c → b → z_base: z_base is not installed`).
        case refused(Plugin, String)
    }

    /// `candidates` in an order that loads every dependency before its dependants (the found order
    /// otherwise), each refused one with its reason. `loaded` are the plugins loaded already, which
    /// satisfy requirements too.
    static func order(_ candidates: [Plugin], loaded: [Plugin]) -> [PluginStep] {
        let byName = Dictionary(candidates.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let loadedByName = Dictionary(loaded.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var verdicts: [String: String?] = [:]   // name → nil (loads) or the reason it does not
        var steps: [PluginStep] = []
        var visiting: [String] = []

        /// Visits `plugin` (depth first, dependencies before it); returns the reason it is refused.
        func visit(_ plugin: Plugin) -> String? {
            if let verdict = verdicts[plugin.name] { return verdict }
            visiting.append(plugin.name)
            defer { visiting.removeLast() }
            var reason: String?
            for requirement in plugin.manifest?.requires ?? [] where reason == nil {
                let name = requirement.name
                if let start = visiting.firstIndex(of: name) {
                    reason = (visiting[start...] + [name]).joined(separator: " → ") + ": a dependency cycle"
                } else if let dependency = byName[name] {
                    if let inner = visit(dependency) {
                        reason = inner.hasSuffix("a dependency cycle") ? inner
                            : inner.hasPrefix(name + " → ") || inner.hasPrefix(name + ":")
                            ? plugin.name + " → " + inner : plugin.name + " → " + name + ": " + inner
                    } else if !requirement.admits(dependency.manifest?.version) {
                        reason = "\(plugin.name) → \(name): requires \(requirement), but \(name) is \(dependency.manifest?.version.map { "version \($0)" } ?? "of no version")"
                    }
                } else if let dependency = loadedByName[name] {
                    if !requirement.admits(dependency.manifest?.version) {
                        reason = "\(plugin.name) → \(name): requires \(requirement), but \(name) is \(dependency.manifest?.version.map { "version \($0)" } ?? "of no version")"
                    }
                } else {
                    reason = "\(plugin.name) → \(name): \(name) is not installed (no plugin folder has it)"
                }
            }
            if verdicts[plugin.name] == nil {
                verdicts[plugin.name] = .some(reason)
                steps.append(reason.map { .refused(plugin, $0) } ?? .load(plugin))
            }
            return reason
        }
        for plugin in candidates { _ = visit(plugin) }
        return steps
    }
}
