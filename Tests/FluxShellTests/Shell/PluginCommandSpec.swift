import Foundation
import Testing
@testable import FluxShell

/// `flux.command`: a plugin's own `:` commands, as a person types, completes and looks them up.
@Suite("Plugin commands")
final class PluginCommandSpec {
    let folder: PluginFolder
    let shell = ShellTranscript(features: true)

    init() throws { folder = try PluginFolder() }

    static let greet = #"""
    flux.command{
      name = "greet", usage = "<name>…", summary = "say hello to each name",
      run = function(args)
        last = args
        return "hello " .. table.concat(args, " and ") .. " (" .. args.text .. ")"
      end,
      complete = function(prefix) return {"alice", "bob", "albert"} end,
    }
    """#

    @Test("run(args) gets the text after the name and its words; a string it returns is printed")
    func runGetsTheLine() throws {
        try folder.write("greeter.lua", Self.greet)
        #expect(shell.print(":load \(folder["greeter.lua"])") == "loaded greeter\n")
        #expect(shell.print(":greet  alice   bob ") == "hello alice and bob (alice   bob)\n")
        #expect(shell.print("#flux.globals('greeter').last") == "2\n", "run is the plugin's: its globals are the plugin's own")
        #expect(shell.print(":greet") == "hello  ()\n")
    }

    @Test("it is listed by :help, shown by :help NAME, and Tab completes its name and its arguments")
    func helpAndCompletion() throws {
        try folder.write("greeter.lua", Self.greet)
        shell.type(":load \(folder["greeter.lua"])")
        let help = shell.print(":help")
        #expect(help.contains("Commands of plugins:\n  :greet <name>…"))
        #expect(help.contains("say hello to each name"))
        #expect(shell.print(":help greet") == ":greet <name>…\n  say hello to each name\n  (defined by plugin greeter (\(folder["greeter.lua"])))\n")
        let s = shell.shell!
        #expect(s.completions(line: ":gr", cursor: 3, word: ":gr") == .words(Shell.commands.map { ":" + $0.name } + [":greet"]))
        #expect(s.completions(line: ":greet al", cursor: 9, word: "al") == .words(["alice", "bob", "albert"]))
        #expect(s.completions(line: ":help gre", cursor: 9, word: "gre") == .words(Shell.commands.map(\.name) + ["greet", "flux"] + FluxReference.functions.map { "flux." + $0.name }))
    }

    @Test("it belongs to its plugin: replaced on :reload, kept when the reload fails, gone on :unload")
    func ownedByItsPlugin() throws {
        let file = try folder.write("greeter.lua", Self.greet)
        shell.type(":load \(file)")
        try folder.write("greeter.lua", #"flux.command{name = "greet", run = function() return "hi" end}"#)
        #expect(shell.print(":reload greeter") == "reloaded greeter\n")
        #expect(shell.print(":greet x") == "hi\n")
        try folder.write("greeter.lua", #"flux.command{name = "greet", run = function() return "new" end} error("half")"#)
        #expect(!shell.type(":reload greeter").ok)
        #expect(shell.print(":greet x") == "hi\n")
        try folder.write("greeter.lua", #"flux.command{name = "wave", run = function() return "o/" end}"#)
        shell.type(":reload greeter")
        #expect(shell.type(":greet").errors == "unknown command ':greet' (try :help)\n")
        #expect(shell.print(":wave") == "o/\n")
        #expect(shell.print(":unload greeter") == "unloaded greeter\n")
        #expect(shell.type(":wave").errors == "unknown command ':wave' (try :help)\n")
        #expect(!shell.print(":help").contains("Commands of plugins"))
    }

    @Test("a name held by a built-in command or another plugin is refused naming the owner; an empty name or one with spaces is refused")
    func namesAreRefused() throws {
        try folder.write("greeter.lua", Self.greet)
        shell.type(":load \(folder["greeter.lua"])")
        try folder.write("rival.lua", #"flux.command{name = "greet", run = function() end}"#)
        let rival = shell.type(":load \(folder["rival.lua"])")
        #expect(rival.errors.contains("command ':greet' belongs to plugin greeter (\(folder["greeter.lua"]))"))
        #expect(shell.print(":greet a").hasPrefix("hello a"))
        #expect(shell.type(#"flux.command{name = "help", run = function() end}"#).errors.contains("command ':help' is built in: choose another name"))
        #expect(shell.type(#"flux.command{name = "", run = function() end}"#).errors.contains("field 'name' is empty"))
        #expect(shell.type(#"flux.command{name = "two words", run = function() end}"#).errors.contains("'two words' is not a command name"))
        #expect(shell.type(#"flux.command{name = "x"}"#).errors.contains("field 'run' must be a function"))
        #expect(shell.type(#"flux.command{name = "x", run = print, colour = 1}"#).errors.contains("unknown field 'colour'"))
    }

    @Test("an error in run is shown with its traceback and counted in :errors; the shell goes on")
    func errorsAreShownAndCounted() throws {
        try folder.write("broken.lua", #"""
        local function inner() error("no such thing") end
        flux.command{name = "boom", run = function(args) inner() end}
        """#)
        shell.type(":load \(folder["broken.lua"])")
        let first = shell.type(":boom")
        #expect(!first.ok)
        #expect(first.errors.contains("error in :boom (plugin broken"))
        #expect(first.errors.contains("broken.lua:1: no such thing"))
        #expect(first.errors.contains("stack traceback:"))
        #expect(first.errors.contains("in upvalue 'inner'") || first.errors.contains("in local 'inner'") || first.errors.contains("inner"))
        shell.type(":boom")
        #expect(shell.print(":errors").contains("2×  command :boom: "))
        #expect(shell.print("1 + 1") == "2\n")
    }

    @Test("complete returning non-strings is refused; a million candidates are cut to 1,000 with a note")
    func completeIsChecked() throws {
        try folder.write("odd.lua", #"""
        flux.command{name = "odd", run = function() end, complete = function() return {"a", 2, "c"} end}
        flux.command{name = "many", run = function() end, complete = function(prefix)
          local t = {prefix .. "1"} for i = 2, 1000000 do t[i] = prefix end return t
        end}
        """#)
        shell.type(":load \(folder["odd.lua"])")
        let s = shell.shell!
        #expect(s.completions(line: ":odd ", cursor: 5, word: "") == .none)
        #expect(shell.type("").errors.contains("complete of :odd returned a number at [2]: candidates must be strings"))
        guard case let .words(candidates, _) = s.completions(line: ":many x", cursor: 7, word: "x") else {
            Issue.record("no words")
            return
        }
        #expect(candidates.count == 1000)
        #expect(candidates.first == "x1")
        #expect(shell.type("").errors.contains("complete of :many offered 1000000 candidates: only the first 1000 are shown"))
    }

    @Test("flux.exec runs a plugin's command from Lua, its error a Lua error")
    func execFromLua() throws {
        try folder.write("greeter.lua", Self.greet)
        #expect(shell.print("flux.exec(':load \(folder["greeter.lua"])')") == "loaded greeter\n")
        #expect(shell.print("flux.exec(':greet bo')") == "hello bo (bo)\n")
        #expect(shell.type("flux.exec(':nope')").errors.contains("unknown command ':nope' (try :help)"))
        #expect(shell.type("flux.exec(':unload')").errors.contains("usage: :unload <plugin>"))
    }

    @Test("Ctrl-C stops a running command with the release fluxsh; the next line runs")
    func interruptStopsACommand() throws {
        try folder.write("spin.lua", #"flux.command{name = "spin", run = function() while true do end end}"#)
        let result = try FluxshProcess.run(["--no-features", "--plugins", folder.path], input: ":spin\nprint('after')\n",
                                           interruptAfter: 1, executable: FluxshProcess.releasePath())
        #expect(result.errors.contains("error in :spin"))
        #expect(result.errors.contains("interrupted"))
        #expect(result.output == "after\n")
    }
}
