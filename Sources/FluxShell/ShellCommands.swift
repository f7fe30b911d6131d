import Flux
import FluxLua

extension Shell {
    /// Every `:` command, in the order `:help` lists them: what `:help` shows and Tab completes.
    static let commands: [ShellCommand] = [
        ShellCommand("help", "[command|flux.NAME]", "list the commands, or show how a command or a flux function is used", completes: [.topic]) { shell, arguments in
            try shell.help(arguments.optional())
        },
        ShellCommand("stores", "", "list the stores") { shell, arguments in
            try arguments.none()
            shell.listStores()
        },
        ShellCommand("state", "[store]", "print a store's state (every store's without a name)", completes: [.store]) { shell, arguments in
            try shell.printState(arguments.optional())
        },
        ShellCommand("actions", "[store]", "list the actions (a store's, or all) with their payload fields", completes: [.store]) { shell, arguments in
            try shell.listActions(arguments.optional())
        },
        ShellCommand("dispatch", "<action> [lua-table]", "dispatch an action with an optional payload", completes: [.action, .payload]) { shell, arguments in
            let (name, payload) = try arguments.head()
            try shell.dispatch(name, payload: payload)
        },
        ShellCommand("views", "", "list the views and the stores they render") { shell, arguments in
            try arguments.none()
            shell.listViews()
        },
        ShellCommand("render", "<view>", "print a view's table", completes: [.view]) { shell, arguments in
            try shell.render(arguments.one())
        },
        ShellCommand("open", "<view> [view…]", "show views full-screen: arrows move, Enter runs a row's action, u undoes, q leaves", completes: [.view]) { shell, arguments in
            try shell.open(arguments.words)
        },
        ShellCommand("watch", "<view>", "after every change, print what changed in a view's table", completes: [.view]) { shell, arguments in
            try shell.watch(arguments.one())
        },
        ShellCommand("unwatch", "[view]", "stop watching a view (all views without a name)", completes: [.watchedView]) { shell, arguments in
            try shell.unwatch(arguments.optional())
        },
        ShellCommand("log", "[on|off]", "after every action, print its payload and each path it changed", completes: [.word(["on", "off"])]) { shell, arguments in
            try shell.log(arguments)
        },
        ShellCommand("undo", "[count]", "undo the last change (a whole group at once), or count of them") { shell, arguments in
            try shell.travel(arguments, undo: true)
        },
        ShellCommand("redo", "[count]", "redo what was undone, one step or count") { shell, arguments in
            try shell.travel(arguments, undo: false)
        },
        ShellCommand("history", "[count|all]", "list the undo steps (#1, #2, …) with payloads and the stores each changed; with a count or all, the session's journal (as :journal)", completes: [.word(["all"])]) { shell, arguments in
            try shell.listHistory(arguments.optional())
        },
        ShellCommand("show", "<#step>", "show every path an undo step of :history (#N) changed, old and new") { shell, arguments in
            guard let reference = StepReference(try arguments.one()) else { throw arguments.usage }
            try shell.show(reference)
        },
        ShellCommand("goto", "<#step|@entry>", "go to the state right after undo step #N of :history or journal entry @N of :journal (a bare N: the entry in a session, else the step)") { shell, arguments in
            guard let reference = StepReference(try arguments.one()) else { throw arguments.usage }
            try shell.goTo(reference)
        },
        ShellCommand("journal", "[count|all]", "list the session's journal (@1, @2, …): each entry as the command that does it again, with its time (the last 20 without a count)", completes: [.word(["all"])]) { shell, arguments in
            try shell.listJournalEntries(arguments.optional())
        },
        ShellCommand("graph", "[--dot]", "draw the stores, what they wait for, and the views over them", completes: [.word(["--dot"])]) { shell, arguments in
            try shell.graph(arguments)
        },
        ShellCommand("load", "<file>", "load a Lua plugin (a .lua file, or a folder with init.lua)", completes: [.file]) { shell, arguments in
            try shell.load(arguments.path())
        },
        ShellCommand("reload", "[plugin]", "run a plugin afresh (all without a name): what it defines replaces its last run, which stays if it fails; --watch NAME reloads it whenever its files change", completes: [.plugin]) { shell, arguments in
            try shell.reload(arguments.whole())
        },
        ShellCommand("unload", "<plugin>", "unload a plugin: its stores, views, actions and subscriptions go", completes: [.plugin]) { shell, arguments in
            guard let name = arguments.whole() else { throw arguments.usage }
            try shell.unload(name)
        },
        ShellCommand("unload!", "<plugin>", "unload a plugin and every plugin that requires it", completes: [.plugin]) { shell, arguments in
            guard let name = arguments.whole() else { throw arguments.usage }
            try shell.unload(name, dependants: true)
        },
        ShellCommand("plugins", "", "list the plugins: version, dependencies, options as set, state, path, what each owns, its last error") { shell, arguments in
            try arguments.none()
            shell.listPlugins()
        },
        ShellCommand("errors", "", "list the recent errors of subscribers, watchers and follow-ups, with counts") { shell, arguments in
            try arguments.none()
            shell.listErrors()
        },
        ShellCommand("record", "[file]", "record every action to a new log file; without a file, stop", completes: [.file]) { shell, arguments in
            try shell.record(arguments, mode: .new)
        },
        ShellCommand("record!", "<file>", "record to a log file that replaces the file there when recording stops", completes: [.file]) { shell, arguments in
            try shell.record(arguments, mode: .replace)
        },
        ShellCommand("record+", "<file>", "record to the end of a log file", completes: [.file]) { shell, arguments in
            try shell.record(arguments, mode: .append)
        },
        ShellCommand("replay", "<file>", "dispatch the actions of a recorded log", completes: [.file]) { shell, arguments in
            try shell.replay(arguments.path())
        },
        ShellCommand("session", "[compact|stale|...]", "show the session kept: its name, file and journal; compact [keep] drops all but the journal's last keep entries (1000), numbers unchanged; stale lists the saved states kept aside when a store changed shape, restore-store <store> converts one back, drop-stale <store> forgets them", completes: [.word(["compact", "stale", "restore-store", "drop-stale"])]) { shell, arguments in
            try shell.runSession(arguments)
        },
        ShellCommand("export", "<file> [from-to]", "write the session's journal (or a range of it) as an action log", completes: [.file]) { shell, arguments in
            let words = try arguments.words(1 ... 2)
            try shell.export(to: words[0], range: words.count == 2 ? words[1] : nil)
        },
        ShellCommand("health", "", "check the shell (Lua, readline, libuv, session, history, terminal, config) and each plugin: ok, warning or error with advice") { shell, arguments in
            try arguments.none()
            try shell.checkHealth()
        },
        ShellCommand("effects", "", "list the live timers, processes, watches and listeners: owner, kind, age, next firing") { shell, arguments in
            try arguments.none()
            shell.listEffects()
        },
        ShellCommand("outbox", "[verb NAME [ID]]", "list each outbox: pending, in-flight and failed entries (attempts, last error, next try); retry NAME sends now, pause NAME and resume NAME stop and start sending, drop NAME ID forgets an entry unsent (asks first in a terminal)", completes: [.word(["retry", "pause", "resume", "drop"])]) { shell, arguments in
            try shell.runOutbox(arguments)
        },
        ShellCommand("quit", "", "leave the shell (Ctrl-D does too)") { shell, arguments in
            try arguments.none()
            shell.stopRecording()
            shell.isFinished = true
        },
    ]

    /// The command named `name` (with or without its colon).
    static func command(named name: String) -> ShellCommand? {
        let name = name.hasPrefix(":") ? String(name.dropFirst()) : name
        return commands.first { $0.name == name }
    }

    /// `unknown command ':hist': did you mean ':history'? (try :help)`.
    static func unknownCommand(_ name: String) -> String {
        let hint = NameSuggestion.closest(to: name, in: commands.map(\.name)).map { "':\($0)'" }
        return "unknown command ':\(name)'" + (hint.isEmpty ? "" : ": did you mean \(hint.joined(separator: " or "))?") + " (try :help)"
    }

    /// Runs a `:` command line.
    ///
    /// - Returns: false when it failed; the error or the usage has been written.
    func runCommand(_ line: String) -> Bool {
        let body = line.dropFirst() // the colon
        let name = String(body.prefix { !$0.isBlank })
        guard let command = Self.commands.first(where: { $0.name == name }) else {
            if let command = host.pluginCommand(named: name) {
                return runPluginCommand(command, text: String(body.dropFirst(name.count)))
            }
            reportMessage(name.isEmpty ? "a command name must follow ':' (try :help)"
                                       : Self.unknownCommand(name))
            return false
        }
        followTerminalWidth()
        defer { acknowledge() }
        do {
            try command.run(self, CommandArguments(String(body.dropFirst(name.count)), for: command))
            return true
        } catch let error as ShellCommandError {
            reportMessage(error.description)
        } catch let error as LuaError {
            // A command's own call into Lua: its traceback says nothing the message doesn't.
            reportMessage(error.message)
        } catch {
            reportError(error)
        }
        return false
    }
}
