import Foundation
import Testing
@testable import FluxShell

/// The user's config and plugins folder, and the lifecycle and health a person meets with the release
/// `fluxsh`.
@Suite("The user's config, --clean, events and :health with the release fluxsh")
final class UserConfigSpec {
    let home: PluginFolder
    let extra: PluginFolder

    init() throws {
        home = try PluginFolder("config")
        extra = try PluginFolder()
    }

    /// Runs the release `fluxsh` with `home` as XDG_CONFIG_HOME.
    func fluxsh(_ arguments: [String], input: String, interruptAfter: TimeInterval? = nil,
                environment: [String: String] = [:]) throws -> FluxshProcess.Result {
        try FluxshProcess.run(arguments, input: input, environment: ["XDG_CONFIG_HOME": home.path].merging(environment) { $1 },
                              interruptAfter: interruptAfter, executable: FluxshProcess.releasePath())
    }

    @Test("init.lua runs before the plugins with the prompt's globals and hands a plugin its options; its plugins folder loads without --plugins; --plugins adds folders")
    func configAndPlugins() throws {
        // The config's globals are the prompt's, not a plugin's (a plugin's globals are its own): what a
        // plugin takes from the config comes through flux.configure and flux.options.
        try home.write("fluxsh/init.lua", #"greeting = "hi"; flux.configure("mine", {size = 3})"#)
        try home.write("fluxsh/plugins/mine/manifest.lua", #"return {version = "0.1", options = {size = 1}}"#)
        try home.write("fluxsh/plugins/mine/init.lua", #"seen = flux.options().size .. " " .. tostring(greeting)"#)
        try extra.write("theirs.lua", #"flux.command{name = "theirs", run = function() return "theirs ran" end}"#)
        let result = try fluxsh(["--no-features", "--plugins", extra.path],
                                input: "print(greeting, flux.globals('mine').seen)\n:theirs\n:plugins\n")
        #expect(result.errors == "")
        #expect(result.output.hasPrefix("hi\t3 nil\ntheirs ran\nmine 0.1  \(home.path)/fluxsh/plugins/mine/init.lua\n  state: loaded"))
        #expect(result.output.contains("theirs  \(extra["theirs.lua"])\n  state: loaded"))
    }

    @Test("--clean starts with neither the config nor its plugins; fluxsh run reads neither")
    func clean() throws {
        try home.write("fluxsh/init.lua", #"greeting = "hi""#)
        try home.write("fluxsh/plugins/mine.lua", #"mine = true"#)
        let clean = try fluxsh(["--clean", "--no-features"], input: "print(greeting, mine)\n:plugins\n")
        #expect(clean.output == "nil\tnil\nno plugins loaded (load one with :load <file>)\n")
        let script = try extra.write("script.lua", "print(greeting, mine)")
        let run = try FluxshProcess.run(["run", script], environment: ["XDG_CONFIG_HOME": home.path], executable: FluxshProcess.releasePath())
        #expect(run.output == "nil\tnil\n")
    }

    @Test("an error in the config is shown and the shell starts; :health reports it")
    func configError() throws {
        try home.write("fluxsh/init.lua", "before = 1\nerror('oops in config')\nafter = 1")
        let result = try fluxsh(["--no-features"], input: "print(before, after)\n:health\n")
        #expect(result.errors.contains("init.lua:2: oops in config"))
        #expect(result.output.hasPrefix("1\tnil\n"))
        #expect(result.output.contains("  error    \(home.path)/fluxsh/init.lua failed: "))
    }

    @Test("a config that loops is stopped by Ctrl-C (or the budget) and the shell starts")
    func loopingConfig() throws {
        try home.write("fluxsh/init.lua", "while true do end")
        let result = try fluxsh(["--no-features"], input: "print('started')\n", interruptAfter: 1)
        #expect(result.errors.contains("interrupted"))
        #expect(result.output == "started\n")
    }

    @Test("a config that loops is stopped by the instruction budget and the shell starts")
    func budgetStopsTheConfig() throws {
        try home.write("fluxsh/init.lua", "while true do end")
        var configuration = ShellConfiguration()
        configuration.features = false
        configuration.instructionBudget = 1_000_000
        configuration.userConfig = UserConfig(folder: home["fluxsh"])
        var errors = ""
        let shell = Shell(configuration: configuration, write: { _ in }, writeError: { errors += $0 })
        #expect(errors.contains("instruction budget"))
        #expect(shell.configError != nil)
        #expect(shell.execute("x = 1"))
    }

    @Test("UserConfig: XDG_CONFIG_HOME/fluxsh, else ~/.config/fluxsh")
    func locations() {
        #expect(UserConfig.located(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/a"])?.initFile == "/x/cfg/fluxsh/init.lua")
        #expect(UserConfig.located(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/a"])?.pluginFolder == "/home/a/.config/fluxsh/plugins")
        #expect(UserConfig.located(environment: [:]) == nil)
    }

    @Test("fluxsh --help says where the config and its plugins live, and what --clean does")
    func help() throws {
        let result = try FluxshProcess.run(["--help"], executable: FluxshProcess.releasePath())
        #expect(result.output.contains("$XDG_CONFIG_HOME/fluxsh/init.lua"))
        #expect(result.output.contains("~/.config/fluxsh/plugins/"))
        #expect(result.output.contains("--clean"))
    }

    @Test("start, session_restored and quit reach the plugins; quit lets a plugin write before the shell exits")
    func lifecycle() throws {
        let log = extra["events.log"]
        try home.write("fluxsh/plugins/logger.lua", #"""
        local file = assert(io.open("\#(log)", "a"))
        for _, name in ipairs{"start", "quit", "session_restored"} do
          flux.on_event(name, function(event) file:write(event, "\n") file:flush() end)
        end
        """#)
        let state = try PluginFolder("state")
        _ = try fluxsh(["--no-features", "--session", "events"], input: "print(1)\n", environment: ["XDG_STATE_HOME": state.path])
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "session_restored\nstart\nquit\n")
    }

    @Test(":health lists the shell's checks and each plugin's, ok / warning / error with advice")
    func health() throws {
        try extra.write("good/manifest.lua", #"return {version = "1.0", health = "check"}"#)
        try extra.write("good/init.lua", #"return {check = function() return {{status = "ok", message = "all fine"}, {status = "warning", message = "getting full", advice = "empty it"}} end}"#)
        try extra.write("bad/manifest.lua", #"return {health = "check"}"#)
        try extra.write("bad/init.lua", #"return {check = function() error("cannot reach the thing") end}"#)
        let result = try fluxsh(["--no-features", "--clean", "--plugins", extra.path], input: ":health\n",
                                environment: ["LANG": "C.UTF-8"])
        let output = result.output
        #expect(output.contains("fluxsh\n  ok       Lua 5.4\n  ok       readline "))
        #expect(output.contains("  ok       UTF-8 locale (C.UTF-8)"))
        #expect(output.contains("  ok       started without the user's config (--clean)"))
        #expect(output.contains("plugin good 1.0\n  ok       all fine\n  warning  getting full\n           → empty it"))
        #expect(output.contains("plugin bad\n  error    check() failed: "))
        #expect(output.contains("cannot reach the thing"))
        #expect(result.errors.contains("1 health check failed"))
    }
}
