import Foundation
import Testing
@testable import FluxShell
@testable import FluxLua

/// Manifests: dependency order, versions, refusals naming the chain, options, a plugin's API.
@Suite("Plugin manifests, dependencies and options")
final class PluginManifestSpec {
    let folder: PluginFolder

    init() throws { folder = try PluginFolder() }

    /// A folder plugin `name` with `manifest` and an init.lua of `body`.
    func plugin(_ name: String, _ manifest: String?, body: String = "") throws {
        if let manifest { try folder.write("\(name)/manifest.lua", manifest) }
        try folder.write("\(name)/init.lua", body)
    }

    /// A shell loading the folder's plugins at start, with what it wrote to standard error. Its config
    /// (`config` after it) keeps the names of the plugins in the order they loaded in the prompt's global
    /// `order`, as a `plugin_loaded` handler (a plugin's globals are its own: none can write the prompt's).
    func start(config: String? = nil) -> (shell: Shell, errors: () -> String, output: () -> String) {
        var configuration = ShellConfiguration()
        configuration.features = false
        configuration.color = false
        configuration.plugins = [folder.path]
        let home = try! PluginFolder("config")
        try! home.write("fluxsh/init.lua", #"order = ""; flux.on_event("plugin_loaded", function(_, name) order = order .. name .. " " end) "#
            + (config ?? ""))
        configuration.userConfig = UserConfig(folder: home["fluxsh"])
        kept.append(home)
        let box = Box()
        let shell = Shell(configuration: configuration, write: { box.output += $0 }, writeError: { box.errors += $0 })
        return (shell, { defer { box.errors = "" }; return box.errors }, { defer { box.output = "" }; return box.output })
    }
    var kept: [PluginFolder] = []
    final class Box { var errors = ""; var output = "" }

    func global(_ shell: Shell, _ name: String) -> String {
        if case let .string(text) = shell.host.vm.global(name) { return text }
        return "\(shell.host.vm.global(name))"
    }

    /// The global `name` of `plugin`, as `flux.globals` shows it at the prompt.
    func global(_ shell: Shell, of plugin: String, _ name: String) throws -> [LuaValue] {
        try shell.host.run("return flux.globals(\"\(plugin)\").\(name)")
    }

    @Test("plugins load after what they require, whatever their names")
    func dependencyOrder() throws {
        try plugin("a_top", #"return {name = "a_top", requires = {"m_mid"}}"#)
        try plugin("m_mid", #"return {name = "m_mid", version = "1.0", requires = {"z_base >= 2.0"}}"#)
        try plugin("z_base", #"return {name = "z_base", version = "2.1"}"#)
        try plugin("b_free", nil)
        let (shell, errors, _) = start()
        #expect(errors() == "")
        #expect(global(shell, "order") == "z_base m_mid a_top b_free ")
    }

    @Test("version constraints: >=, >, =, <, <=, ~> and lists of them")
    func versionConstraints() throws {
        let cases: [(String, String, Bool)] = [
            ("z >= 2.0", "2.0", true), ("z >= 2.0", "1.9.9", false), ("z > 2", "2.0.0", false), ("z > 2", "2.0.1", true),
            ("z = 1.2", "1.2.0", true), ("z == 1.2", "1.3", false), ("z < 3", "2.99", true), ("z <= 3", "3.0", true),
            ("z ~> 2.1", "2.9", true), ("z ~> 2.1", "3.0", false), ("z ~> 2.1.3", "2.1.9", true), ("z ~> 2.1.3", "2.2", false),
            ("z >= 2.0, < 3", "2.5", true), ("z >= 2.0, < 3", "3.0", false), ("z", "0.1", true),
        ]
        for (text, version, admits) in cases {
            let requirement = try PluginRequirement(parsing: text)
            #expect(requirement.name == "z")
            #expect(requirement.admits(PluginVersion(version)) == admits, "\(text) with \(version)")
        }
        for bad in ["z >= two", "z >= 2.x", "z >> 2", "z >= ", ">= 2", "z >= 1..2"] {
            #expect(throws: PluginManifestError.self, "\(bad)") { try PluginRequirement(parsing: bad) }
        }
        #expect(PluginVersion("2.0") == PluginVersion("2"))
        #expect(PluginVersion("v2") == nil && PluginVersion("1.2.3.4.5") == nil && PluginVersion("") == nil)
    }

    @Test("a missing dependency, an unsatisfied version or a cycle is refused naming the chain; dependants do not load, the others do")
    func refusals() throws {
        try plugin("c_top", #"return {name = "c_top", requires = {"b_mid"}}"#)
        try plugin("b_mid", #"return {name = "b_mid", requires = {"z_gone"}}"#)
        try plugin("old_user", #"return {name = "old_user", requires = {"base >= 2.0"}}"#)
        try plugin("base", #"return {name = "base", version = "1.4"}"#)
        try plugin("x_one", #"return {name = "x_one", requires = {"y_two"}}"#)
        try plugin("y_two", #"return {name = "y_two", requires = {"x_one"}}"#)
        try plugin("fine", nil)
        let (shell, errors, output) = start()
        let text = errors()
        #expect(text.contains("plugin b_mid not loaded: b_mid → z_gone: z_gone is not installed"))
        #expect(text.contains("plugin c_top not loaded: c_top → b_mid → z_gone: z_gone is not installed"))
        #expect(text.contains("plugin old_user not loaded: old_user → base: requires base >= 2.0, but base is version 1.4"))
        #expect(text.contains("x_one → y_two → x_one: a dependency cycle"))
        #expect(global(shell, "order") == "base fine ")
        #expect(shell.host.plugins.map(\.name) == ["base", "fine"])
        shell.execute(":plugins")
        let listing = output()
        #expect(listing.contains("base 1.4  \(folder["base"])/init.lua\n  state: loaded"))
        #expect(listing.contains("c_top  not loaded: c_top → b_mid → z_gone"))
    }

    @Test("a dependency chain 100 deep loads in order")
    func deepChain() throws {
        for index in 0..<100 {
            let requires = index == 0 ? "" : #"requires = {"p\#(index - 1)"}"#
            try plugin("p\(index)", #"return {name = "p\#(index)", version = "1.0", \#(requires)}"#)
        }
        let (shell, errors, _) = start()
        #expect(errors() == "")
        #expect(global(shell, "order") == (0..<100).map { "p\($0) " }.joined())
    }

    @Test("manifests are data: not a table, code that calls, a function, a wrong field type, a loop, two with one name — each refused")
    func badManifests() throws {
        try plugin("not_table", #"return "notes""#)
        try plugin("calls", #"print("hi") return {}"#)
        try plugin("has_fn", #"return {name = "has_fn", options = {f = function() end}}"#)
        try plugin("bad_type", #"return {name = "bad_type", version = 2}"#)
        try plugin("bad_version", #"return {version = "two"}"#)
        try plugin("unknown", #"return {nmae = "x"}"#)
        try plugin("loops", #"while true do end"#)
        try plugin("one", #"return {name = "same"}"#)
        try plugin("two", #"return {name = "same"}"#)
        let (shell, errors, _) = start()
        let text = errors()
        #expect(text.contains("a manifest must return a table"))
        #expect(text.contains("calls/manifest.lua:1: attempt to call a nil value (global 'print') (a manifest is data"))
        #expect(text.contains("options.f is a function: a manifest holds data only"))
        #expect(text.contains("field 'version' must be a string such as \"1.0\", got number"))
        #expect(text.contains("field 'version': 'two' is not a version"))
        #expect(text.contains("unknown field 'nmae'"))
        #expect(text.contains("instruction budget"))
        #expect(text.contains("plugin two not loaded: \(folder["one"])/init.lua is named 'same' too"))
        #expect(shell.host.plugins.map(\.name) == ["same"])
    }

    @Test(":unload of a plugin others require refuses naming them; :unload! unloads them too")
    func unloadDependants() throws {
        try plugin("base", #"return {name = "base", version = "2.0"}"#)
        try plugin("mid", #"return {requires = {"base"}}"#)
        try plugin("top", #"return {requires = {"mid"}}"#)
        let (shell, errors, output) = start()
        #expect(!shell.execute(":unload base"))
        #expect(errors() == "plugin base is required by top, mid: unload them first, or use :unload! base to unload them too\n")
        #expect(shell.host.plugins.count == 3)
        #expect(shell.execute(":unload! base"))
        #expect(output() == "unloaded top\nunloaded mid\nunloaded base\n")
        #expect(shell.host.plugins.isEmpty)
    }

    @Test("options: the manifest's defaults, flux.configure in the config over them, flux.options to read; another type or an unknown key refused naming the key")
    func options() throws {
        try plugin("stats", #"return {version = "1.2.0", options = {window = 10, label = "stats", fast = false}}"#,
                   body: #"seen = flux.options(); seen_by_name = flux.options("stats")"#)
        let (shell, errors, output) = start(config: #"flux.configure("stats", {window = 20})"#)
        #expect(errors() == "")
        #expect(try shell.host.run("local g = flux.globals('stats') return g.seen.window, g.seen.label, g.seen.fast, g.seen_by_name.window")
                == [.integer(20), .string("stats"), .boolean(false), .integer(20)])
        shell.execute(#"flux.configure("stats", {windw = 3})"#)
        #expect(errors().contains("plugin stats has no option 'windw' (its options: fast, label, window)"))
        shell.execute(#"flux.configure("stats", {window = "wide"})"#)
        #expect(errors().contains("option 'window' of plugin stats must be a number like its default, got a string"))
        shell.execute(":plugins")
        let listing = output()
        #expect(listing.contains("stats 1.2.0  \(folder["stats"])/init.lua\n  state: loaded"))
        #expect(listing.contains("  options: fast = false, label = \"stats\", window = 20"))
    }

    @Test("a bad option in the config is refused naming the key, and the shell starts")
    func badOptionInConfig() throws {
        try plugin("stats", #"return {options = {window = 10}}"#)
        let (shell, errors, _) = start(config: #"flux.configure("stats", {window = true}) after = 1"#)
        let text = errors()
        #expect(text.contains("option 'window' of plugin stats must be a number like its default, got a boolean"))
        #expect(shell.configError != nil)
        #expect(shell.host.plugins.map(\.name) == ["stats"])
    }

    @Test("require gives a declared dependency's API (what its init.lua returns); an undeclared plugin is not require-able")
    func pluginAPI() throws {
        try plugin("z_base", #"return {version = "2.0"}"#, body: #"return {answer = function() return 42 end}"#)
        try plugin("user", #"return {requires = {"z_base >= 2"}}"#, body: #"got = require("z_base").answer()"#)
        try plugin("sneaky", nil, body: #"ok, message = pcall(require, "z_base")"#)
        let (shell, errors, _) = start()
        #expect(errors() == "")
        #expect(try global(shell, of: "user", "got") == [.integer(42)])
        #expect(try global(shell, of: "sneaky", "ok") == [.boolean(false)])
        let message = try global(shell, of: "sneaky", "message").first
        guard case let .string(message)? = message else { Issue.record("no message: \(String(describing: message))"); return }
        #expect(message.contains("plugin z_base is not a dependency of sneaky: add \"z_base\" to requires in \(folder["sneaky"])/manifest.lua"))
        #expect(try shell.host.run(#"return require("z_base").answer()"#) == [.integer(42)])
        #expect(try shell.host.run(#"return require("string") == string"#) == [.boolean(true)])
    }

    @Test("events: start, plugin_loaded, plugin_unloaded, owned; a handler's error counted, a loop stopped by the budget")
    func events() throws {
        try plugin("watcher", nil, body: #"""
        heard = {}
        for _, name in ipairs{"start", "plugin_loaded", "plugin_unloaded"} do
          flux.on_event(name, function(event, plugin) heard[#heard + 1] = event .. (plugin and (":" .. plugin) or "") end)
        end
        flux.on_event("start", function() error("start failed") end)
        """#)
        try plugin("x_other", nil)
        let (shell, errors, _) = start()
        #expect(try shell.host.run("return table.concat(flux.globals('watcher').heard, ' ')") == [.string("plugin_loaded:watcher plugin_loaded:x_other start")])
        #expect(errors().contains("error in the start handler of plugin watcher"))
        shell.execute(":unload x_other")
        #expect(try shell.host.run("local heard = flux.globals('watcher').heard return heard[#heard]") == [.string("plugin_unloaded:x_other")])
        #expect(shell.host.recentErrors.contains { $0.message.contains("start failed") })
        shell.execute(#"flux.on_event("nope", print)"#)
        #expect(errors().contains("unknown event 'nope' (events: start, quit, plugin_loaded, plugin_unloaded, session_restored)"))
        shell.execute(":unload watcher")
        shell.execute(#"flux.on_event("plugin_loaded", function() while true do end end)"#)
        shell.execute(":load \(folder["x_other"])")
        #expect(errors().contains("instruction budget"))
        #expect(shell.host.plugins.map(\.name) == ["x_other"])
    }
}
