import FluxLua

extension Shell {
    /// `:load file`.
    func load(_ path: String) throws {
        try host.loadPlugin(at: path)
        print("loaded \(try Plugin(at: path).name)")
    }

    /// `:reload [plugin]`: one plugin, or every one whatever the others do.
    func reload(_ name: String?) throws {
        let plugins = host.plugins
        guard !plugins.isEmpty else { throw ShellCommandError.failed("no plugins loaded (load one with :load <file>)") }
        if let name {
            guard let plugin = plugins.first(where: { $0.name == name }) else {
                throw ShellCommandError.failed(FluxHost.unknownPlugin(name, loaded: plugins.map(\.name)))
            }
            try host.reload(plugin)
            print("reloaded \(plugin.name)")
            return
        }
        // Every plugin, whatever the others do: each one's outcome on a line of its own.
        var failed: [String] = []
        for plugin in plugins {
            do {
                try host.reload(plugin)
                print("reloaded \(plugin.name)")
            } catch {
                failed.append(plugin.name)
                reportMessage("\(plugin.name): error \(FluxHost.describe(error))")
            }
        }
        if !failed.isEmpty {
            throw ShellCommandError.failed("\(failed.count) of \(plugins.count) plugins did not reload; each one that failed keeps its last version")
        }
    }

    /// `:unload plugin`.
    func unload(_ name: String) throws {
        try host.unloadPlugin(named: name)
        print("unloaded \(name)")
    }

    /// `:plugins`: each plugin's path, what it owns and its last error.
    func listPlugins() {
        let plugins = host.plugins
        guard !plugins.isEmpty else { return print("no plugins loaded (load one with :load <file>)") }
        var lines: [String] = []
        for plugin in plugins {
            lines.append("\(plugin.name)  \(plugin.path)")
            let owned = host.owned(by: plugin.owner)
            lines.append("  stores: \(owned.stores.isEmpty ? "none" : owned.stores.joined(separator: ", "))")
            lines.append("  views: \(owned.views.isEmpty ? "none" : owned.views.joined(separator: ", "))")
            lines.append("  actions: \(owned.actions.isEmpty ? "none" : owned.actions.joined(separator: ", "))")
            lines.append("  subscriptions: \(owned.subscriptions)")
            if let error = host.pluginErrors[plugin.name] {
                lines.append("  last error: " + error.split(separator: "\n", maxSplits: 1).first.map(String.init)!)
            }
        }
        print(lines.joined(separator: "\n"))
    }

    /// `:errors`: the recent errors nobody could catch, with counts.
    func listErrors() {
        let errors = host.recentErrors
        guard !errors.isEmpty else { return print("no errors") }
        let width = errors.map { "\($0.count)×".count }.max() ?? 0
        print(errors.map { error in
            let count = "\(error.count)×"
            return String(repeating: " ", count: width - count.count) + count + "  " + error.source + ": "
                + (error.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "")
        }.joined(separator: "\n"))
    }
}
