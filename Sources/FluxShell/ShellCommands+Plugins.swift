import FluxLua

extension Shell {
    /// `:load file`.
    func load(_ path: String) throws {
        try host.loadPlugin(at: path)
        print("loaded \(try Plugin(at: path).name)")
    }

    /// `:reload [plugin]`: one plugin, or every one whatever the others do; `:reload --watch plugin`
    /// reloads it whenever one of its files changes, `:reload --unwatch plugin` stops that.
    func reload(_ name: String?) throws {
        if let name, let (flag, plugin) = Self.watchFlag(name) {
            guard let plugin else { throw ShellCommandError.failed("usage: :reload \(flag) <plugin>") }
            if flag == "--unwatch" {
                guard host.unwatchPlugin(named: plugin) else {
                    throw ShellCommandError.failed("plugin \(plugin) is not watched (watched: \(host.watchedPlugins.isEmpty ? "none" : host.watchedPlugins.joined(separator: ", ")))")
                }
                return print("stopped watching \(plugin)")
            }
            let folder = try host.watchPlugin(named: plugin) { [weak self] line, failed in
                guard let self else { return }
                if failed { reportMessage(line) } else { print(line) }
            }
            return print("watching \(plugin): it reloads when a .lua file in \(folder) changes (:reload --unwatch \(plugin) stops)")
        }
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

    /// `--watch NAME` or `--unwatch NAME` (nil for NAME when it is missing); nil for anything else.
    static func watchFlag(_ text: String) -> (flag: String, plugin: String?)? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let flag = words.first, flag == "--watch" || flag == "--unwatch", words.count <= 2 else { return nil }
        return (flag, words.count == 2 ? words[1] : nil)
    }

    /// `:unload plugin`, or `:unload! plugin` with the plugins that require it.
    func unload(_ name: String, dependants: Bool = false) throws {
        let unloaded = try host.unloadPlugin(named: name, dependants: dependants)
        print(unloaded.map { "unloaded \($0)" }.joined(separator: "\n"))
    }

    /// A command a plugin defined with `flux.command`: its `run` gets the rest of the line. Ctrl-C stops
    /// it; its error is shown with the traceback and counted in `:errors`.
    ///
    /// - Returns: false when it failed; the error has been written.
    func runPluginCommand(_ command: PluginCommand, text: String) -> Bool {
        followTerminalWidth()
        defer { acknowledge() }
        do {
            if let result = try host.run(command, text: text) { print(result) }
            return true
        } catch {
            writeError("error in :\(command.name) (\(command.owner)): " + host.describe(error) + "\n")
            return false
        }
    }

    /// `:plugins`: each plugin's version, dependencies, options as set and state, its path, what it owns
    /// and its last error; then the plugins refused (a dependency missing, a cycle).
    func listPlugins() {
        let plugins = host.plugins
        let refused = host.pluginErrors.filter { name, _ in !plugins.contains { $0.name == name } }.sorted { $0.key < $1.key }
        guard !plugins.isEmpty || !refused.isEmpty else { return print("no plugins loaded (load one with :load <file>)") }
        var lines: [String] = []
        for plugin in plugins {
            let version = plugin.manifest?.version.map { " \($0)" } ?? ""
            lines.append("\(plugin.name)\(version)  \(plugin.path)")
            lines.append("  state: " + (host.pluginErrors[plugin.name] == nil ? "loaded" : "failed (its last error is below; the last version that loaded stays)"))
            if let manifest = plugin.manifest {
                if !manifest.requires.isEmpty { lines.append("  requires: " + manifest.requires.map(\.description).joined(separator: ", ")) }
                if let options = host.options(ofPlugin: plugin.name), !options.isEmpty {
                    lines.append("  options: " + options.sorted { $0.key < $1.key }.map { "\($0.key) = \(describe($0.value))" }.joined(separator: ", "))
                }
            }
            let commands = host.pluginCommands.filter { $0.owner == plugin.owner }.map { ":" + $0.name }
            if !commands.isEmpty { lines.append("  commands: " + commands.joined(separator: ", ")) }
            let owned = host.owned(by: plugin.owner)
            lines.append("  stores: \(owned.stores.isEmpty ? "none" : owned.stores.joined(separator: ", "))")
            lines.append("  views: \(owned.views.isEmpty ? "none" : owned.views.joined(separator: ", "))")
            lines.append("  actions: \(owned.actions.isEmpty ? "none" : owned.actions.joined(separator: ", "))")
            lines.append("  subscriptions: \(owned.subscriptions)")
            if let error = host.pluginErrors[plugin.name] {
                lines.append("  last error: " + error.split(separator: "\n", maxSplits: 1).first.map(String.init)!)
            }
        }
        for (name, reason) in refused {
            lines.append("\(name)  not loaded: \(reason.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "")")
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

extension Shell {
    /// What Tab offers for the arguments of a plugin's command: what its `complete(prefix, text)`
    /// returns. An error, or a list that is not of strings, is written and offers nothing; a list longer
    /// than ``FluxHost/maximumCompletions`` is cut, with a note.
    func pluginCommandCompletions(named name: String, typed line: Substring, word: String) -> Completions {
        guard let command = host.pluginCommand(named: name), command.completes else { return .none }
        let text = String(line.drop(while: \.isBlank).dropFirst(name.count + 1).drop(while: \.isBlank))
        do {
            let (candidates, note) = try host.completions(of: command, prefix: word, text: text)
            if let note { writeError("\n" + note + "\n") }
            return .words(candidates)
        } catch {
            writeError("\nerror in complete of :\(command.name) (\(command.owner)): \(FluxHost.describe(error).split(separator: "\n").first ?? "")\n")
            return .none
        }
    }
}
