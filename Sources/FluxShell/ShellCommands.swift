import Flux
import FluxLua
import FluxTable
import Foundation

extension Shell {
    /// Every `:` command, in the order `:help` lists them.
    static let commands: [ShellCommand] = [
        ShellCommand(name: "help", arguments: "[command|flux.NAME]", summary: "list the commands, or show how a command or a flux function is used",
                     completes: []) { shell, text in try shell.help(text) },
        ShellCommand(name: "stores", arguments: "", summary: "list the stores",
                     completes: []) { shell, text in try shell.listStores(text) },
        ShellCommand(name: "state", arguments: "[store]", summary: "print a store's state (every store's without a name)",
                     completes: [.store]) { shell, text in try shell.printState(text) },
        ShellCommand(name: "actions", arguments: "[store]", summary: "list the actions (a store's, or all) with their payload fields",
                     completes: [.store]) { shell, text in try shell.listActions(text) },
        ShellCommand(name: "dispatch", arguments: "<action> [lua-table]", summary: "dispatch an action with an optional payload",
                     completes: [.action]) { shell, text in try shell.dispatch(text) },
        ShellCommand(name: "views", arguments: "", summary: "list the views and the stores they render",
                     completes: []) { shell, text in try shell.listViews(text) },
        ShellCommand(name: "render", arguments: "<view>", summary: "print a view's table",
                     completes: [.view]) { shell, text in try shell.render(text) },
        ShellCommand(name: "watch", arguments: "<view>", summary: "after every change, print what changed in a view's table",
                     completes: [.view]) { shell, text in try shell.watch(text) },
        ShellCommand(name: "unwatch", arguments: "[view]", summary: "stop watching a view (all views without a name)",
                     completes: [.watchedView]) { shell, text in try shell.unwatch(text) },
        ShellCommand(name: "log", arguments: "[on|off]", summary: "after every action, print its payload and each path it changed",
                     completes: []) { shell, text in try shell.log(text) },
        ShellCommand(name: "undo", arguments: "[count]", summary: "undo the last change (a whole group at once), or count of them",
                     completes: []) { shell, text in try shell.travel(text, undo: true) },
        ShellCommand(name: "redo", arguments: "[count]", summary: "redo what was undone, one step or count",
                     completes: []) { shell, text in try shell.travel(text, undo: false) },
        ShellCommand(name: "history", arguments: "[count|all]", summary: "list the undo steps with payloads and the stores each changed; with a count or all, the session's journal",
                     completes: []) { shell, text in try shell.listHistory(text) },
        ShellCommand(name: "show", arguments: "<step>", summary: "show every path a step of :history changed, old and new",
                     completes: []) { shell, text in try shell.show(text) },
        ShellCommand(name: "goto", arguments: "<entry>", summary: "go to the state right after entry N of the journal (no session: step N of :history)",
                     completes: []) { shell, text in try shell.goTo(text) },
        ShellCommand(name: "graph", arguments: "[--dot]", summary: "draw the stores, what they wait for, and the views over them",
                     completes: []) { shell, text in try shell.graph(text) },
        ShellCommand(name: "load", arguments: "<file>", summary: "load a Lua plugin (a .lua file, or a folder with init.lua)",
                     completes: [.file]) { shell, text in try shell.load(text) },
        ShellCommand(name: "reload", arguments: "[plugin]", summary: "run a plugin afresh (all without a name): what it defines replaces its last run, which stays if it fails",
                     completes: [.plugin]) { shell, text in try shell.reload(text) },
        ShellCommand(name: "plugins", arguments: "", summary: "list the plugins: path, what each owns, its last error",
                     completes: []) { shell, text in try shell.listPlugins(text) },
        ShellCommand(name: "errors", arguments: "", summary: "list the recent errors of subscribers, watchers and follow-ups, with counts",
                     completes: []) { shell, text in try shell.listErrors(text) },
        ShellCommand(name: "record", arguments: "[file]", summary: "record every action to a new log file; without a file, stop",
                     completes: [.file]) { shell, text in try shell.record(text, mode: .new) },
        ShellCommand(name: "record!", arguments: "<file>", summary: "record to a log file that replaces the file there when recording stops",
                     completes: [.file]) { shell, text in try shell.record(text, mode: .replace) },
        ShellCommand(name: "record+", arguments: "<file>", summary: "record to the end of a log file",
                     completes: [.file]) { shell, text in try shell.record(text, mode: .append) },
        ShellCommand(name: "replay", arguments: "<file>", summary: "dispatch the actions of a recorded log",
                     completes: [.file]) { shell, text in try shell.replay(text) },
        ShellCommand(name: "session", arguments: "[compact [keep]]", summary: "show the session kept: its name, file and journal; compact drops all but the journal's last keep entries (1000), numbers unchanged",
                     completes: []) { shell, text in try shell.runSession(text) },
        ShellCommand(name: "export", arguments: "<file> [from-to]", summary: "write the session's journal (or a range of it) as an action log",
                     completes: [.file]) { shell, text in try shell.export(text) },
        ShellCommand(name: "quit", arguments: "", summary: "leave the shell (Ctrl-D does too)",
                     completes: []) { shell, text in try shell.quit(text) },
    ]

    /// The command named `name` (with or without its colon).
    static func command(named name: String) -> ShellCommand? {
        let name = name.hasPrefix(":") ? String(name.dropFirst()) : name
        return commands.first { $0.name == name }
    }

    private func arguments(_ text: String, _ name: String) -> CommandArguments {
        CommandArguments(text, for: Self.command(named: name)!)
    }

    // MARK: Commands

    func help(_ text: String) throws {
        if let name = try arguments(text, "help").optional() {
            if name.hasPrefix("flux.") || name == "flux" { return try helpFlux(name) }
            guard let command = Self.command(named: name) else {
                throw ShellCommandError.failed("unknown command ':\(name.hasPrefix(":") ? String(name.dropFirst()) : name)' (try :help)")
            }
            print("\(command.usage)\n  \(command.summary)")
            return
        }
        let width = Self.commands.map(\.usage.count).max() ?? 0
        let lineWidth = host.renderOptions.width
        var lines = FluxReference.wrap("Type Lua (an expression prints its value; `=` at the start means return) or a command:", width: lineWidth)
        // A summary too long for the line goes on under itself, so that the list fits the terminal.
        let room = max(20, host.renderOptions.width - width - 4)
        for command in Self.commands {
            let summary = FluxReference.wrap(command.summary, width: room)
            lines.append("  " + command.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + (summary.first ?? ""))
            lines += summary.dropFirst().map { String(repeating: " ", count: width + 4) + $0 }
        }
        lines += FluxReference.wrap("Tab completes commands, names and Lua fields; Ctrl-C stops a running script; Ctrl-D leaves. :help flux lists the functions of the flux module.", width: lineWidth)
        print(lines.joined(separator: "\n"))
    }

    func listStores(_ text: String) throws {
        try arguments(text, "stores").none()
        let stores = dispatcher.stores
        guard !stores.isEmpty else { return print("no stores") }
        print(stores.map(\.name).joined(separator: "\n"))
    }

    func printState(_ text: String) throws {
        if let name = try arguments(text, "state").optional() {
            _ = try host.store(named: name)
            print(try stateText(of: name))
            return
        }
        let stores = dispatcher.stores
        guard !stores.isEmpty else { return print("no stores") }
        print(try stores.map { "\($0.name) = \(try stateText(of: $0.name))" }.joined(separator: "\n"))
    }

    func listActions(_ text: String) throws {
        let names: [String]
        if let store = try arguments(text, "actions").optional() {
            names = try host.store(named: store).actionNames
        } else {
            names = dispatcher.registry.names
        }
        guard !names.isEmpty else { return print("no actions") }
        print(names.sorted().map { name in
            host.payloadFields(of: name).flatMap { $0.fields.isEmpty ? nil : name + " " + $0.description } ?? name
        }.joined(separator: "\n"))
    }

    func dispatch(_ text: String) throws {
        let arguments = arguments(text, "dispatch")
        guard let name = arguments.words.first else { throw ShellCommandError.usage(arguments.command) }
        let payloadText = text.drop(while: \.isBlank).dropFirst(name.count)
            .trimmingCharacters(in: .whitespaces)
        var payload: LuaRef?
        if !payloadText.isEmpty {
            let chunk: LuaRef
            do {
                chunk = try host.vm.load("return " + payloadText, chunkName: "=payload")
            } catch let error as LuaError {
                throw ShellCommandError.failed("payload is not a Lua value: \(error.message)")
            }
            payload = try host.vm.call(chunk, results: 1) { lua, range in lua.ref(at: range.lowerBound) }
        }
        try host.vm.call(fluxDispatch) { lua in
            lua.push(name)
            if let payload { lua.push(payload) }
        }
    }

    func listViews(_ text: String) throws {
        try arguments(text, "views").none()
        let names = host.views.names
        guard !names.isEmpty else { return print("no views") }
        let width = names.map(\.count).max() ?? 0
        print(names.map { name in
            let store = host.views.provider(named: name)?.store ?? "?"
            return name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + "renders " + store
        }.joined(separator: "\n"))
    }

    func render(_ text: String) throws {
        print(try host.render(view: try arguments(text, "render").one()))
    }

    func watch(_ text: String) throws {
        let view = try arguments(text, "watch").one()
        guard !watches.contains(where: { $0.view == view }) else {
            throw ShellCommandError.failed("already watching '\(view)'")
        }
        let subscription = try host.watch(view: view) { [unowned self] changes, old, new in
            guard !monitor.isReplayingJournal else { return }
            print(watchHeading(for: view) + "\(view):\n" + PatchRenderer(options: host.renderOptions).render(changes, from: old, to: new))
        }
        watches.append((view, subscription))
        print("watching \(view): its changes print after every action")
    }

    func unwatch(_ text: String) throws {
        guard let view = try arguments(text, "unwatch").optional() else {
            guard !watches.isEmpty else { return print("not watching any view") }
            print("stopped watching " + watches.map(\.view).joined(separator: ", "))
            watches.removeAll()
            return
        }
        guard let index = watches.firstIndex(where: { $0.view == view }) else {
            let watched = watches.isEmpty ? "none" : watches.map(\.view).joined(separator: ", ")
            throw ShellCommandError.failed("not watching '\(view)' (watching: \(watched))")
        }
        watches.remove(at: index)
        print("stopped watching \(view)")
    }

    func listHistory(_ text: String) throws {
        switch try arguments(text, "history").optional() {
        case nil: break
        case "all": return try listJournal(nil)
        case let count?:
            guard let count = Int(count), count > 0 else {
                throw ShellCommandError.failed("'\(count)' is not a count: :history 20 lists the journal's last 20 entries, :history all all of it")
            }
            return try listJournal(count)
        }
        listSteps()
    }

    func load(_ text: String) throws {
        let path = try arguments(text, "load").path()
        try host.loadPlugin(at: path)
        print("loaded \(try Plugin(at: path).name)")
    }

    func reload(_ text: String) throws {
        let plugins = host.plugins
        guard !plugins.isEmpty else { throw ShellCommandError.failed("no plugins loaded (load one with :load <file>)") }
        if let name = try arguments(text, "reload").optional() {
            guard let plugin = plugins.first(where: { $0.name == name }) else {
                throw ShellCommandError.failed("unknown plugin '\(name)' (loaded: \(plugins.map(\.name).joined(separator: ", ")))")
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

    func listPlugins(_ text: String) throws {
        try arguments(text, "plugins").none()
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

    func listErrors(_ text: String) throws {
        try arguments(text, "errors").none()
        let errors = host.recentErrors
        guard !errors.isEmpty else { return print("no errors") }
        let width = errors.map { "\($0.count)×".count }.max() ?? 0
        print(errors.map { error in
            let count = "\(error.count)×"
            return String(repeating: " ", count: width - count.count) + count + "  " + error.source + ": "
                + (error.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "")
        }.joined(separator: "\n"))
    }

    func record(_ text: String, mode: FileWriter.Mode) throws {
        let name = switch mode { case .new: "record"; case .replace: "record!"; case .append: "record+" }
        let arguments = arguments(text, name)
        guard !arguments.words.isEmpty else {
            guard mode == .new, let recording else { throw ShellCommandError.usage(arguments.command) }
            guard let error = stopRecording(reporting: false) else {
                return print("recorded \(recording.recorder.count) entries to \(recording.path)")
            }
            throw ShellCommandError.failed(error)
        }
        let path = try arguments.path()
        if let recording {
            throw ShellCommandError.failed("already recording to \(recording.path) (:record alone stops)")
        }
        let file: FileWriter
        do {
            file = try FileWriter(path: path, mode: mode)
        } catch let error as FileError where error.code == EEXIST {
            throw ShellCommandError.failed(
                "\(path) is not empty: :record! \(path) replaces it, :record+ \(path) appends to it")
        } catch {
            throw ShellCommandError.failed("\(error)")
        }
        let recorder = ActionRecorder { [unowned self] line in record(line) }
        dispatcher.middleware.append(recorder)
        recording = Recording(path: path, file: file, recorder: recorder)
        print("recording to \(path) (:record alone stops)")
    }

    /// Writes one log line; a write that fails stops the recording, with every store as it is.
    private func record(_ line: String) {
        guard let recording else { return }
        do {
            try recording.file.write(line + "\n")
        } catch {
            let entry = recording.recorder.count
            recording.file.discard()
            dispatcher.middleware.removeAll { $0 as AnyObject === recording.recorder }
            self.recording = nil
            let kept = recording.file.mode == .replace ? "\(recording.path) is as it was"
                : "\(recording.path) keeps the \(entry - 1) entr\(entry == 2 ? "y" : "ies") before it"
            reportMessage("\(error): entry \(entry) was not recorded (\(line.prefix(80))); recording stopped, \(kept)")
        }
    }

    /// Stops `:record`, closing its file (a `:record!` file replaces the one at its path now).
    ///
    /// - Parameter reporting: Whether to write a failure as an error, else only return it.
    /// - Returns: Why the log could not be finished, or nil.
    @discardableResult
    func stopRecording(reporting: Bool = true) -> String? {
        guard let recording else { return nil }
        dispatcher.middleware.removeAll { $0 as AnyObject === recording.recorder }
        self.recording = nil
        do {
            try recording.file.close()
            return nil
        } catch {
            let message = "\(error): the log of \(recording.recorder.count) entries was not saved"
            if reporting { reportMessage(message) }
            return message
        }
    }

    func replay(_ text: String) throws {
        let path = try arguments(text, "replay").path()
        let log = try FluxHost.readSource(path)
        let progress = ProgressLine(label: "replaying \(path):")
        defer { progress.finish() }
        let interrupted = { SignalInterrupts.interruptPending }
        do {
            // All or nothing: a line the stores refuse, or Ctrl-C between entries (or in a Lua handler),
            // puts every store and the undo history back, and the journal, a recording and the devtools
            // forget what they heard of it.
            let count = try ActionReplayer(dispatcher: dispatcher, decode: host.logDecoder)
                .replay(contentsOf: log, progress: progress.update, shouldStop: interrupted)
            progress.finish()
            print("replayed \(count) entr\(count == 1 ? "y" : "ies") from \(path)")
        } catch {
            progress.finish()
            if interrupted() || (error as? ReplayError)?.isStopped == true {
                throw ShellCommandError.failed("interrupted: nothing of \(path) was applied")
            }
            throw ShellCommandError.failed("\(path): \(error)")
        }
    }

    func quit(_ text: String) throws {
        try arguments(text, "quit").none()
        stopRecording()
        isFinished = true
    }
}
