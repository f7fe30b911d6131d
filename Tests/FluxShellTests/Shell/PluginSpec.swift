import Foundation
import Testing
@testable import FluxShell

/// Plugins as their author meets them: a folder of plugins loaded by the shell, files edited on disk and
/// reloaded, mistakes that must not leave half a plugin behind, and errors that must not flood.
@Suite("Plugins own what they register")
final class PluginSpec {
    let folder: String
    let shell = ShellTranscript(features: true)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("plugins-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// Writes `text` to `path` inside the plugin folder, making its folders.
    func write(_ path: String, _ text: String) throws {
        let full = (folder as NSString).appendingPathComponent(path)
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// A store typed at the prompt that counts what plugins' subscribers heard, by `who`.
    static let heard = #"flux.store{name = "heard", state = {}, on = {["heard.add"] = function(s, a) s[a.who] = (s[a.who] or 0) + 1 end}}"#

    static let counter = #"""
    flux.store{name = "shared", state = {n = 0}, on = {
      ["shared.add"] = function(state, action) state.n = state.n + (action.by or 1) end,
      ["shared.reset"] = function(state) state.n = 0 end,
    }}
    """#

    @Test("a second plugin defining another plugin's store is refused, naming the owner and its file; the first keeps its handlers")
    func storeBelongsToItsPlugin() throws {
        try write("p1/init.lua", Self.counter)
        try write("p2/init.lua", #"flux.store{name = "shared", on = {["shared.add"] = function(state) state.n = 1000 end}}"#)
        shell.type(":load \(path("p1"))")
        let second = shell.type(":load \(path("p2"))")
        #expect(!second.ok)
        #expect(second.errors.contains("store 'shared' belongs to plugin p1 (\(path("p1"))/init.lua)"))
        #expect(shell.print(":dispatch shared.add {by = 2}") == "")
        #expect(shell.print("flux.state('shared').n") == "2\n")
    }

    @Test("the interactive session may redefine its own store (state kept, handlers replaced), not a plugin's or a Swift one")
    func sessionOwnsWhatItTypes() throws {
        #expect(shell.print(#"flux.store{name = "mine", state = {n = 1}, on = {["mine.bump"] = function(s) s.n = s.n + 1 end}}"#) == "")
        #expect(shell.print(":dispatch mine.bump") == "")
        #expect(shell.print(#"flux.store{name = "mine", on = {["mine.bump"] = function(s) s.n = s.n + 10 end}}"#) == "")
        #expect(shell.print(":dispatch mine.bump") == "")
        #expect(shell.print("flux.state('mine').n") == "12\n")
        #expect(shell.type(#"flux.store{name = "ticTacToe"}"#).errors.contains("store 'ticTacToe' belongs to the Swift features"))
        try write("p1.lua", #"flux.store{name = "mine"}"#)
        #expect(shell.type(":load \(path("p1.lua"))").errors.contains("store 'mine' belongs to the interactive session"))
    }

    @Test("a Lua view cannot replace a Swift view of the same name")
    func swiftViewsAreKept() throws {
        let result = shell.type(#"flux.view("ticTacToe", {store = "ticTacToe", render = function() return {sections = {}} end})"#)
        #expect(result.errors.contains("view 'ticTacToe' belongs to the Swift features"))
        #expect(shell.print(":render ticTacToe").contains("X's turn"))
    }

    @Test("a plugin that fails halfway leaves nothing registered or subscribed; the error names file and line; the others load on")
    func loadIsATransaction() throws {
        try write("a_broken.lua", #"""
        flux.store{name = "half", on = {["half.do"] = function() end}}
        flux.view("half", {store = "half", render = function() return {sections = {}} end})
        flux.subscribe("ticTacToe", function() heard = (heard or 0) + 1 end)
        error("not finished")
        """#)
        try write("b_fine.lua", Self.counter)
        var configuration = ShellConfiguration()
        configuration.plugins = [folder]
        var errors = ""
        let loaded = Shell(configuration: configuration, write: { _ in }, writeError: { errors += $0 })
        #expect(errors.contains("a_broken.lua:4: not finished"))
        #expect(loaded.dispatcher.store(named: "half") == nil)
        #expect(loaded.dispatcher.store(named: "shared") != nil)
        #expect(!loaded.host.views.names.contains("half"))
        #expect(!loaded.dispatcher.registry.contains("half.do"))
        #expect(try loaded.host.run("return #flux.subscriptions()") == [.integer(0)])
    }

    @Test("a reload after editing files on disk replaces the plugin: edited modules re-read, dropped actions and views gone, state kept, old subscriptions ended")
    func reloadReplaces() throws {
        try write("p1/init.lua", #"""
        local util = require "util"
        flux.store{name = "shared", state = {n = 0}, on = {
          ["shared.add"] = function(state) state.n = state.n + util.step end,
          ["shared.old"] = function(state) state.n = -1 end,
        }}
        flux.view("old", {store = "shared", render = function() return {sections = {}} end})
        flux.subscribe("shared", function(state, previous) if previous then flux.dispatch("heard.add", {who = "v1"}) end end)
        """#)
        try write("p1/util.lua", "return {step = 1}")
        // A plugin's globals are its own: what its subscribers heard is told to a store.
        shell.type(Self.heard)
        shell.type(":load \(path("p1"))")
        #expect(shell.print(":dispatch shared.add") == "")

        try write("p1/init.lua", #"""
        local util = require "util"
        flux.store{name = "shared", on = {["shared.add"] = function(state) state.n = state.n + util.step end}}
        flux.subscribe("shared", function(state, previous) if previous then flux.dispatch("heard.add", {who = "v2"}) end end)
        """#)
        try write("p1/util.lua", "return {step = 100}")
        #expect(shell.print(":reload p1") == "reloaded p1\n")
        #expect(shell.print(":dispatch shared.add") == "")
        #expect(shell.print("flux.state('shared').n") == "101\n")
        #expect(shell.print("flux.state('heard').v1, flux.state('heard').v2") == "1\t1\n")
        #expect(shell.type(":dispatch shared.old").errors.contains("unknown action 'shared.old'"))
        #expect(!shell.print(":views").contains("old"))
    }

    @Test("a reload that fails leaves the old version exactly as it was: handlers, views, subscriptions")
    func failedReloadKeepsTheOldVersion() throws {
        try write("p1.lua", #"""
        flux.store{name = "shared", state = {n = 0}, on = {["shared.add"] = function(state) state.n = state.n + 1 end}}
        flux.view("shared", {store = "shared", render = function(s) return {sections = {{header = "n=" .. s.n, cells = {}}}} end})
        flux.subscribe("shared", function(state, previous) if previous then flux.dispatch("heard.add", {who = "old"}) end end)
        """#)
        shell.type(Self.heard)
        shell.type(":load \(path("p1.lua"))")
        try write("p1.lua", #"""
        flux.store{name = "shared", on = {["shared.add"] = function(state) state.n = 999 end}}
        flux.store{name = "extra"}
        flux.subscribe("shared", function(state, previous) if previous then flux.dispatch("heard.add", {who = "new"}) end end)
        local x = nil + 1
        """#)
        let result = shell.type(":reload p1")
        #expect(!result.ok)
        #expect(result.errors.contains("p1.lua:4:"))
        #expect(shell.print(":dispatch shared.add") == "")
        #expect(shell.print("flux.state('shared').n, flux.state('heard').old, flux.state('heard').new") == "1\t1\tnil\n")
        #expect(shell.print(":render shared").contains("n=1"))
        #expect(shell.type(":state extra").errors.contains("unknown store"))
        #expect(shell.print(":plugins").contains("last error: \(path("p1.lua")):4:"))
    }

    @Test(":reload with no name reloads every plugin and reports each, never stopping at the first failure")
    func reloadAll() throws {
        try write("p1.lua", "flux.store{name = 'one'}")
        try write("p2.lua", "flux.store{name = 'two'}")
        try write("p3.lua", "flux.store{name = 'three'}")
        for name in ["p1", "p2", "p3"] { shell.type(":load \(path(name + ".lua"))") }
        try write("p2.lua", "error('p2 is broken')")
        let result = shell.type(":reload")
        #expect(result.output == "reloaded p1\nreloaded p3\n")
        #expect(result.errors.contains("p2: error \(path("p2.lua")):1: p2 is broken"))
        #expect(shell.print(":stores").contains("two"))
    }

    @Test("two plugins' util.lua never meet: require finds the plugin's own module first")
    func privateModules() throws {
        try write("p1/util.lua", "return {who = 'p1'}")
        try write("p1/init.lua", "p1_util = require('util').who")
        try write("p2/util.lua", "return {who = 'p2'}")
        try write("p2/init.lua", "p2_util = require('util').who")
        shell.type(":load \(path("p1"))")
        shell.type(":load \(path("p2"))")
        #expect(shell.print("flux.globals('p1').p1_util, flux.globals('p2').p2_util") == "p1\tp2\n")
    }

    @Test(":actions shows the payload fields a Lua store declares")
    func actionsShowFields() throws {
        shell.type(#"flux.store{name = "todo", actions = {["todo.add"] = {title = "string", due = "number?"}}, on = {["todo.add"] = function() end, ["todo.clear"] = function() end}}"#)
        #expect(shell.print(":actions todo") == "todo.add {due: number?, title: string}\ntodo.clear\n")
    }

    @Test(":plugins lists each plugin, its path, what it owns and its last error")
    func listPlugins() throws {
        try write("p1/init.lua", Self.counter + "\nflux.subscribe('shared', function() end)")
        shell.type(":load \(path("p1"))")
        let listing = shell.print(":plugins")
        #expect(listing.contains("p1  \(path("p1"))/init.lua"))
        #expect(listing.contains("stores: shared"))
        #expect(listing.contains("actions: shared.add, shared.reset"))
        #expect(listing.contains("subscriptions: 1"))
        #expect(!listing.contains("last error"))
    }

    @Test("a subscriber failing on 10,000 dispatches prints its error once in full and one summary line; :errors counts them")
    func errorsDoNotFlood() throws {
        shell.type(#"flux.store{name = "c", state = {n = 0}, on = {["c.up"] = function(s) s.n = s.n + 1 end}}"#)
        shell.type(#"flux.subscribe("c", function(state) if state.n > 0 then error("broken subscriber") end end)"#)
        let result = shell.type("for i = 1, 10000 do flux.dispatch('c.up') end")
        #expect(result.ok)
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count < 12, "\(lines.count) lines of errors")
        #expect(result.errors.components(separatedBy: "broken subscriber").count - 1 == 1)
        #expect(result.errors.contains("stack traceback"))
        #expect(lines.last?.hasPrefix("… the same error 9,999 more times") == true)
        #expect(shell.print(":errors").contains("10000×  subscriber of 'c': stdin:1: broken subscriber"))
    }

    @Test(":unload takes a plugin's stores, views, actions and subscriptions away; dispatching its action is unknown; it can be loaded afresh")
    func unload() throws {
        try write("p1.lua", Self.counter + #"""

        flux.view("shared", {store = "shared", render = function(s) return {sections = {}} end})
        flux.subscribe("ticTacToe", function() heard = (heard or 0) + 1 end)
        """#)
        shell.type(":load \(path("p1.lua"))")
        #expect(shell.print(":dispatch shared.add") == "")
        #expect(shell.print(":unload p1") == "unloaded p1\n")
        shell.type("heard = 0")
        shell.type(":dispatch ticTacToe.placeToken {index = 0}")
        #expect(shell.print("heard") == "0\n")
        #expect(shell.type(":dispatch shared.add").errors.contains("unknown action 'shared.add'"))
        #expect(!shell.print(":stores").contains("shared"))
        #expect(!shell.print(":views").contains("shared"))
        #expect(shell.print(":plugins") == "no plugins loaded (load one with :load <file>)\n")
        #expect(shell.type(":unload p1").errors.contains("unknown plugin 'p1'"))
        #expect(shell.print(":load \(path("p1.lua"))") == "loaded p1\n")
        #expect(shell.print("flux.state('shared').n") == "0\n")
    }

    @Test("the same plugin loaded again by another spelling of its path (./, a symlink) is reloaded, not refused as another plugin")
    func sameFileAnotherPath() throws {
        try write("p1.lua", Self.counter)
        try FileManager.default.createSymbolicLink(atPath: path("link.lua"), withDestinationPath: path("p1.lua"))
        try FileManager.default.createDirectory(atPath: path("linked"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("linked/p1.lua"), withDestinationPath: path("p1.lua"))
        shell.type(":load \(path("p1.lua"))")
        shell.type(":dispatch shared.add")
        #expect(shell.print(":load \(folder)/./p1.lua") == "loaded p1\n")
        #expect(shell.print(":load \(path("linked/p1.lua"))") == "loaded p1\n")
        #expect(shell.print("flux.state('shared').n") == "1\n")
        #expect(shell.print(":plugins").contains("p1  \(path("p1.lua"))"))
        try write("p2/p1.lua", "flux.store{name = 'other'}")
        #expect(shell.type(":load \(path("p2/p1.lua"))").errors.contains("a plugin named 'p1' is loaded already, from \(path("p1.lua"))"))
    }

    @Test("a plugin raising a table, a __tostring object or a message without a position at load: the error names its file and line")
    func loadErrorWithoutPosition() throws {
        try write("t.lua", "flux.store{name = 'half'}\nerror({code = 42})")
        try write("s.lua", "\nerror(setmetatable({}, {__tostring = function() return 'custom' end}))")
        try write("z.lua", "\n\nerror('no position', 0)")
        #expect(shell.type(":load \(path("t.lua"))").errors.hasPrefix("\(path("t.lua")):2: (error object is a table value)"))
        #expect(shell.type(":load \(path("s.lua"))").errors.hasPrefix("\(path("s.lua")):2: custom"))
        #expect(shell.type(":load \(path("z.lua"))").errors.hasPrefix("\(path("z.lua")):3: no position"))
        #expect(shell.print(":plugins").contains("last error: \(path("t.lua")):2: (error object is a table value)"))
        #expect(shell.type(":state half").errors.contains("unknown store"))
    }

    @Test("a plugin that does not compile: the error is its file, line and Lua's message, with no traceback of the loader's frames")
    func syntaxErrorAtLoad() throws {
        try write("a_bad.lua", "flux.store{name = 'half'}\nlocal x = = 1")
        try write("p1/init.lua", "local m = require 'mod'")
        try write("p1/mod.lua", "return {")
        var configuration = ShellConfiguration()
        configuration.plugins = [folder]
        var errors = ""
        _ = Shell(configuration: configuration, write: { _ in }, writeError: { errors += $0 })
        #expect(errors.contains("plugin a_bad.lua failed to load: \(path("a_bad.lua")):2: unexpected symbol near '='\nplugin p1 failed"))
        #expect(errors.contains("p1/mod.lua:1: unexpected symbol near <eof>\nstack traceback:"))
        #expect(errors.contains("p1/init.lua:1: in main chunk"))
        #expect(!errors.contains("in function <plugin loader"))
    }

    @Test("a plugin in a folder whose name holds a blank loads, reloads and unloads by that name")
    func nameWithABlank() throws {
        try write("my plugins/two words/init.lua", "flux.store{name = 'spaced', on = {['spaced.do'] = function() end}}")
        #expect(shell.print(":load \(path("my plugins/two words"))") == "loaded two words\n")
        let completing = { (line: String, word: String) in self.shell.shell.completions(line: line, cursor: line.utf8.count, word: word) }
        #expect(completing(":reload tw", "tw") == .words(["two words"]))
        #expect(completing(":unload two w", "w") == .words(["words"]))
        #expect(completing(":reload two ", "") == .words(["words"]))
        #expect(completing(":reload one ", "") == .words([]))
        #expect(shell.print(":reload two words") == "reloaded two words\n")
        #expect(shell.print(":unload two words") == "unloaded two words\n")
        #expect(shell.type(":dispatch spaced.do").errors.contains("unknown action 'spaced.do'"))
    }

    @Test("fluxsh --plugins with a plugin that runs for ever: Ctrl-C stops it, it is reported and not registered, the others load and the shell goes on")
    func interruptAPluginAtStart() throws {
        try write("a_loop.lua", "flux.store{name = 'looping', on = {['looping.x'] = function() end}}\nwhile true do end")
        try write("b_fine.lua", Self.counter)
        let run = try FluxshProcess.run(["--no-color", "--no-session", "--plugins", folder],
                                        input: "print(flux.state('shared').n)\n:stores\n", interruptAfter: 1, killAfter: 30)
        #expect(run.errors.contains("a_loop.lua:2: interrupted"))
        #expect(run.output.hasPrefix("0\n"))
        #expect(!run.output.contains("looping"))
    }

    @Test("fluxsh --plugins with two plugins that run for ever: each Ctrl-C stops one, and the shell still starts")
    func interruptTwoPluginsAtStart() throws {
        try write("a_loop.lua", "while true do end")
        try write("b_loop.lua", "while true do end")
        try write("c_fine.lua", Self.counter)
        let run = try FluxshProcess.run(["--no-color", "--no-session", "--plugins", folder],
                                        input: "print(flux.state('shared').n)\n", interruptAfter: 1, interrupts: 2, killAfter: 30)
        #expect(run.errors.contains("a_loop.lua:1: interrupted"))
        #expect(run.errors.contains("b_loop.lua:1: interrupted"))
        #expect(run.output == "0\n")
        #expect(run.status == 0)
    }

    @Test("fluxsh with a folder of two plugins, one subscriber failing 10,000 times: a handful of lines, not 10,000 tracebacks")
    func floodInTheBinary() throws {
        try write("p1/init.lua", Self.counter)
        try write("p2/init.lua", #"flux.subscribe("shared", function(state) if state.n > 0 then error("p2 cannot keep up") end end)"#)
        let run = try FluxshProcess.run(["--no-color", "--no-session", "--plugins", folder],
                                        input: "for i = 1, 10000 do flux.dispatch('shared.add') end\n:errors\n")
        let lines = run.errors.split(separator: "\n")
        #expect(lines.count < 12, "\(lines.count) lines of errors:\n\(run.errors.prefix(2000))")
        #expect(run.errors.contains("p2/init.lua:1: p2 cannot keep up"))
        #expect(run.errors.contains("… the same error 9,999 more times (subscriber of 'shared')"))
        #expect(run.output.contains("10000×  subscriber of 'shared'"))
    }
}
