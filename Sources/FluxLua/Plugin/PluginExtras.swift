import Foundation

/// What plugins offer besides stores, views and subscriptions — `:` commands, lifecycle event handlers,
/// the API their `init.lua` returns — and the options the user set for them.
///
/// Like the rest of a plugin's run, what a run of a plugin's file adds is a transaction: it is staged
/// while the file runs and replaces what the plugin offered before only when the run succeeds
/// (``FluxHost/reload(_:)``); a failed run leaves the last version's commands and handlers in place.
/// What the interactive session defines is in force at once.
final class PluginExtras {
    /// What one owner offers.
    struct Offered {
        var commands: [String: PluginCommand] = [:]
        var handlers: [EventHandler] = []
    }

    /// A function `flux.on_event` registered.
    struct EventHandler {
        let event: String
        let function: LuaRef
        let number: Int
    }

    /// What is in force, by owner.
    var committed: [Owner: Offered] = [:]
    /// What the runs in progress have defined so far, by owner.
    var staged: [Owner: Offered] = [:]
    /// What each plugin's `init.lua` returned, by plugin name (nil results are not kept).
    var exports: [String: LuaRef] = [:]
    /// The options `flux.configure` set, by plugin name.
    var configured: [String: [String: LuaValue]] = [:]
    /// The manifests of plugins about to load (found in the plugin folders), by name: `flux.configure`
    /// checks its keys against them before the plugins run.
    var knownManifests: [String: PluginManifest] = [:]
    /// The names of the commands the host's user has built in (the shell's `:help`…), refused to plugins.
    var builtInCommands: Set<String> = []
    /// The number the next event handler gets.
    var nextHandler = 1
    /// The plugins reloaded when their files change, by name (``PluginWatch``).
    var watches: [String: PluginWatch] = [:]

    /// The offers of `owner` a new definition goes to: the staged ones while its run is in progress.
    func isStaging(_ owner: Owner) -> Bool { staged[owner] != nil }

    /// Every command in force, by name.
    var commands: [String: PluginCommand] {
        var all: [String: PluginCommand] = [:]
        for offered in committed.values { all.merge(offered.commands) { first, _ in first } }
        return all
    }
}

/// A `:` command a plugin (or the session) defined with `flux.command`.
public struct PluginCommand {
    /// The name without its colon.
    public let name: String
    /// Its arguments as `:help` shows them (`<name> [count]`), maybe empty.
    public let usage: String
    /// One line on what it does.
    public let summary: String
    /// Who defined it.
    public let owner: Owner
    let run: LuaRef
    let complete: LuaRef?

    /// `:name usage`.
    public var usageLine: String { usage.isEmpty ? ":\(name)" : ":\(name) \(usage)" }
    /// Whether it completes its arguments.
    public var completes: Bool { complete != nil }
}

extension FluxHost {
    /// The events `flux.on_event` accepts.
    public static let pluginEvents = ["start", "quit", "plugin_loaded", "plugin_unloaded", "session_restored"]

    /// The most instructions an event handler, a command's completion or a health check may run when no
    /// budget is set (a `quit` handler cannot be stopped with Ctrl-C once the prompt is gone).
    static let callbackBudget = 200_000_000

    /// The most candidates a command's `complete` may offer; more are cut, with a note.
    public static let maximumCompletions = 1000

    // MARK: A plugin's run

    /// Starts staging what a run of `plugin`'s file offers; checks the options the user set for it.
    func beginExtras(of plugin: Plugin) throws {
        try checkConfiguredOptions(of: plugin)
        pluginExtras.staged[plugin.owner] = PluginExtras.Offered()
    }

    /// The run succeeded: what it offered replaces what the plugin offered before; `export` (what its
    /// file returned) is its API.
    func commitExtras(of plugin: Plugin, export: LuaRef?) {
        pluginExtras.committed[plugin.owner] = pluginExtras.staged.removeValue(forKey: plugin.owner)
        pluginExtras.exports[plugin.name] = export
    }

    /// The run failed: what it offered goes, what the plugin offered before stays.
    func discardExtras(of plugin: Plugin) {
        pluginExtras.staged[plugin.owner] = nil
    }

    /// The plugin is unloaded: its commands, handlers and API go.
    func removeExtras(of plugin: Plugin) {
        pluginExtras.committed[plugin.owner] = nil
        pluginExtras.staged[plugin.owner] = nil
        pluginExtras.exports[plugin.name] = nil
    }

    /// Adds to what the running owner offers: staged during a plugin's run, else in force at once.
    private func offer(_ change: (inout PluginExtras.Offered) -> Void) {
        if pluginExtras.isStaging(runningOwner) {
            change(&pluginExtras.staged[runningOwner]!)
        } else {
            change(&pluginExtras.committed[runningOwner, default: PluginExtras.Offered()])
        }
    }

    // MARK: Commands

    /// The names of the host user's own commands: `flux.command` refuses them.
    public var builtInCommandNames: Set<String> {
        get { pluginExtras.builtInCommands }
        set { pluginExtras.builtInCommands = newValue }
    }

    /// The commands scripts defined, by name.
    public var pluginCommands: [PluginCommand] {
        pluginExtras.commands.values.sorted { $0.name < $1.name }
    }

    /// The command scripts defined as `name`, if any.
    public func pluginCommand(named name: String) -> PluginCommand? {
        pluginExtras.commands[name]
    }

    /// `flux.command{name, run, complete, usage, summary}`.
    func defineCommand(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        try arguments.expect(.table, at: 1)
        guard lua.rawGet("name", from: 1) == .string else {
            throw arguments.error(1, "field 'name' must be a string such as \"greet\", got \(lua.type(at: -1).name)")
        }
        let name = try arguments.name(at: -1, of: 1, "field 'name'")
        lua.pop()
        guard !name.isEmpty else { throw arguments.error(1, "field 'name' is empty: a command needs a name such as \"greet\"") }
        guard !name.contains(where: { $0.isWhitespace }), !name.hasPrefix(":") else {
            throw arguments.error(1, "field 'name': '\(name)' is not a command name (one word, without ':' in front)")
        }
        guard lua.rawGet("run", from: 1) == .function else {
            throw arguments.error(1, "field 'run' must be a function run(args), got \(lua.type(at: -1).name)")
        }
        let run = lua.ref(at: -1)
        lua.pop()
        var complete: LuaRef?
        switch lua.rawGet("complete", from: 1) {
        case .function: complete = lua.ref(at: -1)
        case .nil: break
        case let other: throw arguments.error(1, "field 'complete' must be a function complete(prefix), got \(other.name)")
        }
        lua.pop()
        func text(_ field: String) throws -> String {
            defer { lua.pop() }
            switch lua.rawGet(field, from: 1) {
            case .string: return lua.string(at: -1) ?? ""
            case .nil: return ""
            case let other: throw arguments.error(1, "field '\(field)' must be a string, got \(other.name)")
            }
        }
        let usage = try text("usage"), summary = try text("summary")
        for key in Self.keys(of: 1, on: lua) where !["name", "run", "complete", "usage", "summary"].contains(key) {
            throw arguments.error(1, "unknown field '\(key)' (a command has name, run, complete, usage, summary)")
        }
        if pluginExtras.builtInCommands.contains(name) {
            throw FluxScriptError("command ':\(name)' is built in: choose another name")
        }
        for (owner, offered) in pluginExtras.committed.merging(pluginExtras.staged, uniquingKeysWith: { $1 })
        where owner != runningOwner && offered.commands[name] != nil {
            throw OwnershipError(kind: "command", name: ":" + name, owner: owner)
        }
        let command = PluginCommand(name: name, usage: usage, summary: summary.isEmpty ? "(no summary)" : summary,
                                    owner: runningOwner, run: run, complete: complete)
        offer { $0.commands[name] = command }
        return 0
    }

    /// The string keys of the table at `index`.
    static func keys(of index: Int32, on lua: LuaStack) -> [String] {
        var keys: [String] = []
        lua.forEachPair(in: index) { keys.append(lua.string(at: -2) ?? "?") }
        return keys
    }

    /// Runs `command` with the text after its name: `run(args)` gets `args.text` (the text, trimmed) and
    /// the words in `args[1]`…; a string it returns is the result.
    ///
    /// - Throws: its error, with the traceback; the error is counted in ``recentErrors``.
    public func run(_ command: PluginCommand, text: String) throws -> String? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        do {
            return try vm.call(command.run, results: 1, arguments: { lua in
                lua.pushTable(arrayCapacity: Int32(words.count), fieldCapacity: 1)
                for (index, word) in words.enumerated() {
                    lua.push(word)
                    lua.rawSet(index + 1, in: -2)
                }
                lua.push(text)
                lua.rawSet("text", in: -2)
            }) { lua, results in lua.string(at: results.lowerBound) }
        } catch let error as LuaError where error.kind == .interrupted {
            throw error
        } catch {
            let message = Self.message(of: error)
            _ = errorThrottle.note(source: "command :\(command.name)", callback: ":\(command.name)",
                                   place: ErrorThrottle.place(message: message, traceback: (error as? LuaError)?.traceback), message: message)
            throw error
        }
    }

    /// What `command`'s `complete(prefix, text)` offers for `prefix`, the word being typed (`text` is
    /// everything after the name): strings only, at most ``maximumCompletions`` (the note says how many
    /// more there were).
    ///
    /// - Throws: `complete`'s error, or a refusal of what it returned (not a list of strings).
    public func completions(of command: PluginCommand, prefix: String, text: String) throws -> (candidates: [String], note: String?) {
        guard let complete = command.complete else { return ([], nil) }
        let outer = vm.instructionBudget
        if outer == nil { vm.instructionBudget = Self.callbackBudget }
        defer { if outer == nil { vm.instructionBudget = nil } }
        do {
            return try vm.call(complete, results: 1, arguments: { lua in
                lua.push(prefix)
                lua.push(text)
            }) { lua, results in
                let list = results.lowerBound
                guard lua.type(at: list) == .table else {
                    if lua.type(at: list) == .nil { return ([], nil) }
                    throw FluxScriptError("complete of :\(command.name) returned a \(lua.type(at: list).name): it must return a list of strings")
                }
                let count = lua.rawLength(at: list)
                var candidates: [String] = []
                for index in 1 ... max(1, min(count, Self.maximumCompletions)) where count > 0 {
                    defer { lua.pop() }
                    guard lua.rawGet(index, from: list) == .string, let candidate = lua.string(at: -1) else {
                        throw FluxScriptError("complete of :\(command.name) returned a \(lua.type(at: -1).name) at [\(index)]: candidates must be strings")
                    }
                    candidates.append(candidate)
                }
                let note = count > Self.maximumCompletions
                    ? "complete of :\(command.name) offered \(count) candidates: only the first \(Self.maximumCompletions) are shown" : nil
                return (candidates, note)
            }
        } catch {
            let message = Self.message(of: error)
            _ = errorThrottle.note(source: "complete of :\(command.name)", callback: "complete :\(command.name)",
                                   place: ErrorThrottle.place(message: message, traceback: (error as? LuaError)?.traceback), message: message)
            throw error
        }
    }

    // MARK: Events

    /// `flux.on_event(name, fn)`: `fn` is called when the event happens, until its owner is reloaded or
    /// unloaded.
    func onEvent(_ arguments: LuaArguments) throws -> Int32 {
        try arguments.expect(atMost: 2)
        let name = try arguments.name(1, "event name")
        guard Self.pluginEvents.contains(name) else {
            throw arguments.error(1, "unknown event '\(name)' (events: \(Self.pluginEvents.joined(separator: ", ")))")
        }
        let function = try arguments.function(2)
        let handler = PluginExtras.EventHandler(event: name, function: function, number: pluginExtras.nextHandler)
        pluginExtras.nextHandler += 1
        offer { $0.handlers.append(handler) }
        return 0
    }

    /// Calls every handler of `event`, oldest first, with `argument` (a plugin's name) if given. Each runs
    /// within a budget; an error is reported and counted like a subscriber's, and the others run on.
    public func fire(_ event: String, _ argument: String? = nil) {
        let handlers = pluginExtras.committed.flatMap { owner, offered in
            offered.handlers.filter { $0.event == event }.map { (owner, $0) }
        }.sorted { $0.1.number < $1.1.number }
        guard !handlers.isEmpty else { return }
        let outer = vm.instructionBudget
        if outer == nil { vm.instructionBudget = Self.callbackBudget }
        defer { if outer == nil { vm.instructionBudget = nil } }
        for (owner, handler) in handlers {
            do {
                try vm.call(handler.function) { lua in
                    lua.push(event)
                    if let argument { lua.push(argument) }
                }
            } catch {
                report(error, heading: "error in the \(event) handler of \(owner)", source: "event '\(event)' handler of \(owner)",
                       callback: "event \(handler.number)")
            }
        }
        flushErrors()
    }

    // MARK: Options

    /// `flux.configure(name, options)`: sets options of the plugin `name` before it loads (it reads them
    /// on its next load or reload).
    func configure(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        let name = try arguments.name(1, "plugin name")
        try arguments.expect(.table, at: 2)
        guard case let .table(fields) = lua.value(at: 2).asTable else {
            throw arguments.error(2, "options must be a table of names and values such as {width = 40}")
        }
        var options: [String: LuaValue] = pluginExtras.configured[name] ?? [:]
        for (key, value) in fields {
            guard case let .string(key) = key else { throw arguments.error(2, "options have names; found the key \(key)") }
            options[key] = value
        }
        if let manifest = pluginExtras.knownManifests[name] ?? plugins.first(where: { $0.name == name })?.manifest {
            try Self.check(options, against: manifest)
        } else if plugins.contains(where: { $0.name == name }) {
            throw FluxScriptError("plugin \(name) has no options (its folder has no manifest.lua declaring them)")
        }
        pluginExtras.configured[name] = options
        return 0
    }

    /// `flux.options([name])`: the options of the plugin `name` (the running plugin's without one): its
    /// manifest's defaults with what `flux.configure` set over them, as a new table.
    func readOptions(_ arguments: LuaArguments) throws -> Int32 {
        try arguments.expect(atMost: 1)
        let name: String
        if arguments.stack.isNil(at: 1) {
            guard case let .plugin(running, _) = runningOwner else {
                throw arguments.error(1, "plugin name expected (only a plugin's own file may leave it out)")
            }
            name = running
        } else {
            name = try arguments.name(1, "plugin name")
        }
        guard let options = options(ofPlugin: name) else {
            throw FluxScriptError("no plugin '\(name)' with options is loaded or loading (loaded: \(plugins.isEmpty ? "none" : plugins.map(\.name).joined(separator: ", ")))")
        }
        arguments.stack.push(LuaValue.table(Dictionary(uniqueKeysWithValues: options.map { (LuaKey.string($0.key), $0.value) })))
        return 1
    }

    /// The options of the plugin `name` as set: its defaults with the configured values over them; nil
    /// for a plugin that is not loaded.
    public func options(ofPlugin name: String) -> [String: LuaValue]? {
        guard let plugin = plugins.first(where: { $0.name == name }) else { return nil }
        return (plugin.manifest?.options ?? [:]).merging(pluginExtras.configured[name] ?? [:]) { _, set in set }
    }

    /// Refuses configured options `plugin`'s manifest does not declare, or of another type.
    private func checkConfiguredOptions(of plugin: Plugin) throws {
        guard let options = pluginExtras.configured[plugin.name] else { return }
        guard let manifest = plugin.manifest else {
            throw FluxScriptError("flux.configure set options for \(plugin.name), which has no manifest.lua declaring options")
        }
        try Self.check(options, against: manifest)
    }

    private static func check(_ options: [String: LuaValue], against manifest: PluginManifest) throws {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            guard let standard = manifest.options[key] else {
                let known = manifest.options.keys.sorted()
                throw FluxScriptError("plugin \(manifest.name) has no option '\(key)' (its options: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
            }
            guard standard.kindName == value.kindName else {
                throw FluxScriptError("option '\(key)' of plugin \(manifest.name) must be a \(standard.kindName) like its default, got a \(value.kindName)")
            }
        }
    }

    // MARK: A plugin's API

    /// Makes the prompt's `require "NAME"` of a plugin's name give that plugin's API (what its `init.lua`
    /// returned). Other names go to Lua's `require`. Installed after the plugin loader took the VM's own
    /// `require`: a plugin's `require` asks ``pluginAPI(named:)`` itself (``PluginLoader``).
    func installPluginRequire() {
        guard let wrap = try? vm.load("""
            local require, lookup = require, ...
            _G.require = function(name, ...)
              local found, value = lookup(name)
              if found then return value end
              return require(name, ...)
            end
            """, chunkName: "=plugin require") else { return }
        try? vm.call(wrap) { lua in pushPluginLookup(on: lua) }
    }

    /// [..] -> [.., function]. `lookup(name)`: `true, api` when `name` is a plugin's (its API, or `true`
    /// when its file returned nothing), `false` when it is no plugin's; an error when the code running
    /// may not have it (``pluginAPI(named:)``).
    func pushPluginLookup(on lua: LuaStack) {
        let reference = self.reference
        lua.push(function: { lua in
            let host = try reference.require()
            guard lua.type(at: 1) == .string, let name = lua.string(at: 1) else {
                lua.push(false)
                return 1
            }
            guard let value = try host.pluginAPI(named: Name.normalized(name)) else {
                lua.push(false)
                return 1
            }
            lua.push(true)
            if let value { lua.push(value) } else { lua.push(true) }
            return 2
        })
    }

    /// The API of the plugin `name` for the code running now: nil when `name` is no plugin's; `.some(nil)`
    /// for a plugin whose file returned nothing.
    ///
    /// - Throws: when the running plugin does not list `name` in its manifest's `requires`, or `name` is
    ///   not loaded.
    func pluginAPI(named name: String) throws -> LuaRef?? {
        let target = plugins.first { $0.name == name }
        guard target != nil || pluginExtras.knownManifests[name] != nil else { return nil }
        if case let .plugin(running, _) = runningOwner, let plugin = plugins.first(where: { $0.name == running }) {
            guard name != running else { throw FluxScriptError("plugin \(running) cannot require itself") }
            guard plugin.manifest?.requires.contains(where: { $0.name == name }) == true else {
                let file = plugin.folder.map { ($0 as NSString).appendingPathComponent("manifest.lua") } ?? "a manifest.lua (make the plugin a folder)"
                throw FluxScriptError("plugin \(name) is not a dependency of \(running): add \"\(name)\" to requires in \(file)")
            }
        }
        guard let target, pluginErrors[target.name] == nil || pluginExtras.exports[target.name] != nil else {
            throw FluxScriptError("plugin \(name) is not loaded\(pluginErrors[name].map { ": " + ($0.split(separator: "\n").first.map(String.init) ?? "") } ?? "")")
        }
        return .some(pluginExtras.exports[target.name])
    }
}
