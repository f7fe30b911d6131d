import Foundation
import Testing
@testable import FluxShell

/// Plugins kept from each other, as a user with two plugins meets them: a callback acts as the owner that
/// made it, each plugin has its own globals and read-only shared tables, `debug` reaches only its own
/// code, and what a failed dispatch or reload did is undone with it.
@Suite("The plugin sandbox")
final class PluginSandboxSpec {
    let folder: String
    let shell = ShellTranscript(features: true)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func write(_ name: String, _ text: String) throws {
        let full = (folder as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    static let bank = #"""
    flux.store{name = "bank", state = {balance = 0}, actions = {["bank.deposit"] = {amount = "integer"}}, on = {
      ["bank.deposit"] = function(state, action) state.balance = state.balance + action.amount end,
    }}
    flux.dispatch("ticTacToe.placeToken", {index = 4})
    """#

    /// Plugin A: on every move, tries to make `bank` subtract, and to take the store typed at the prompt.
    static let thief = #"""
    flux.subscribe("ticTacToe", function(state, previous)
      if previous then
        flux.store{name = "bank", on = {["bank.deposit"] = function(state, action) state.balance = state.balance - action.amount end}}
      end
    end)
    flux.subscribe("ticTacToe", function(state, previous)
      if previous then flux.store{name = "mine", on = {["mine.bump"] = function(state) state.n = -1000 end}} end
    end)
    """#

    // MARK: Owners that hold

    @Test("plugin A's subscriber, fired while plugin B loads, cannot redefine B's store: the error names B, and deposits add")
    func subscriberDuringAnotherLoad() throws {
        try write("a.lua", Self.thief)
        try write("b.lua", Self.bank)
        #expect(shell.type(":load \(path("a.lua"))").ok)
        let loaded = shell.type(":load \(path("b.lua"))")
        #expect(loaded.errors.contains("store 'bank' belongs to plugin b"))
        #expect(shell.print(":dispatch bank.deposit {amount = 5}") == "")
        #expect(shell.print("flux.state('bank').balance") == "5\n")
    }

    @Test("plugin A's subscriber, fired by a move at the prompt, cannot redefine a store typed at the prompt")
    func subscriberAtThePrompt() throws {
        try write("a.lua", Self.thief)
        #expect(shell.print(#"flux.store{name = "mine", state = {n = 1}, on = {["mine.bump"] = function(s) s.n = s.n + 1 end}}"#) == "")
        #expect(shell.type(":load \(path("a.lua"))").ok)
        let move = shell.type(":dispatch ticTacToe.placeToken {index = 0}")
        #expect(move.errors.contains("store 'mine' belongs to the interactive session"))
        #expect(shell.print(":dispatch mine.bump") == "")
        #expect(shell.print("flux.state('mine').n") == "2\n")
    }

    @Test("a subscription made inside a plugin's callback is the plugin's: it ends on :unload")
    func subscriptionInsideCallback() throws {
        try write("a.lua", #"""
        local inner
        flux.subscribe("ticTacToe", function()
          if not inner then inner = flux.subscribe("ticTacToe", function() end) end
        end)
        """#)
        #expect(shell.type(":load \(path("a.lua"))").ok)
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 0}") == "")
        #expect(shell.print("#flux.subscriptions()") == "2\n")
        #expect(shell.type(":unload a").ok)
        #expect(shell.print("#flux.subscriptions()") == "0\n")
    }

    @Test("a plugin cancelling every subscription it can list cancels only its own; the session's goes on hearing")
    func cancelOnlyOwn() throws {
        #expect(shell.print("heard = 0 sub = flux.subscribe('ticTacToe', function() heard = heard + 1 end)") == "")
        try write("c.lua", #"""
        flux.subscribe("ticTacToe", function() end)
        for _, s in ipairs(flux.subscriptions("ticTacToe")) do s:cancel() end
        """#)
        #expect(shell.type(":load \(path("c.lua"))").ok)
        #expect(shell.print("sub:active()") == "true\n")
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 0}") == "")
        #expect(shell.print("heard") == "2\n")
    }

    @Test("a plugin that handles another store's action may not declare its payload: refused at load, naming the owner; the owner's declaration holds")
    func payloadBelongsToItsStore() throws {
        try write("a.lua", #"""
        flux.store{name = "audit", state = {n = 0}, actions = {["bank.deposit"] = {amount = "string"}},
          on = {["bank.deposit"] = function(state) state.n = state.n + 1 end}}
        """#)
        try write("b.lua", Self.bank)
        let first = shell.type(":load \(path("a.lua"))")
        #expect(!first.ok)
        #expect(first.errors.contains("store 'audit' declares the payload of 'bank.deposit', an action of store 'bank'"))
        #expect(shell.type(":load \(path("b.lua"))").ok)
        #expect(shell.print(":dispatch bank.deposit {amount = 7}") == "")
        #expect(shell.print("flux.state('bank').balance") == "7\n")
    }

    // MARK: Own globals

    @Test("a plugin's globals are its own: the prompt does not see them, flux.globals shows them read-only")
    func ownGlobals() throws {
        try write("g.lua", "count = 41 count = count + 1 tostring = function() return 'forged' end")
        #expect(shell.type(":load \(path("g.lua"))").ok)
        #expect(shell.print("count") == "nil\n")
        #expect(shell.print("tostring(5)") == "5\n")
        #expect(shell.print("flux.globals('g').count") == "42\n")
        #expect(shell.type("flux.globals('g').count = 1").errors.contains("read-only"))
        #expect(shell.type("flux.globals('nope')").errors.contains("no globals of a plugin 'nope'"))
    }

    @Test("flux and the standard library are read-only in a plugin: replacing flux.dispatch or string.format is refused; a rawset changes only the plugin's own view")
    func sharedTablesReadOnly() throws {
        try write("a.lua", "flux.dispatch = function() end")
        let refused = shell.type(":load \(path("a.lua"))")
        #expect(refused.errors.contains("flux is shared and read-only"))
        try write("b.lua", "string.format = nil")
        #expect(shell.type(":load \(path("b.lua"))").errors.contains("string is shared and read-only"))
        try write("c.lua", #"""
        rawset(flux, "dispatch", function() end) rawset(string, "rep", function() return "forged" end)
        getmetatable("").__index = {}
        """#)
        #expect(shell.type(":load \(path("c.lua"))").errors.contains("read-only"))
        try write("d.lua", #"rawset(flux, "dispatch", function() end) rawset(string, "rep", function() return "forged" end) mine = string.rep("a", 2)"#)
        #expect(shell.type(":load \(path("d.lua"))").ok)
        #expect(shell.print("flux.globals('d').mine") == "forged\n")
        #expect(shell.print("string.rep('a', 2)") == "aa\n")
        #expect(shell.print("flux.dispatch('ticTacToe.placeToken', {index = 0}) return flux.state('ticTacToe').board[1]") == "X\n")
        try write("e.lua", #"seen = ("x"):rep(3) .. string.rep("y", 2)"#)
        #expect(shell.type(":load \(path("e.lua"))").ok)
        #expect(shell.print("flux.globals('e').seen") == "xxxyy\n")
    }

    @Test("a plugin's private require still finds its own modules, which share its globals; require 'flux' is its own flux")
    func privateRequire() throws {
        try write("p/init.lua", #"local util = require "util" total = util.double(21) same = require("flux") == flux"#)
        try write("p/util.lua", "helper_loaded = true return {double = function(n) return n * 2 end}")
        #expect(shell.type(":load \(path("p"))").ok)
        #expect(shell.print("flux.globals('p').total") == "42\n")
        #expect(shell.print("flux.globals('p').helper_loaded") == "true\n")
        #expect(shell.print("flux.globals('p').same") == "true\n")
        #expect(shell.print("helper_loaded") == "nil\n")
    }

    @Test("debug in a plugin reaches its own functions only: another owner's frame, a C function and the hook are refused")
    func debugRestricted() throws {
        try write("d.lua", #"""
        local function mine(a) local name = debug.getlocal(1, 1) return name end
        own = mine(1)
        flux.subscribe("ticTacToe", function(state)
          local ok, message = pcall(debug.getlocal, 3, 1)
          frame = message
          ok, message = pcall(debug.getupvalue, print, 1)
          cfunction = message
          ok, message = pcall(debug.sethook)
          hook = message
        end)
        """#)
        #expect(shell.type(":load \(path("d.lua"))").ok)
        #expect(shell.print("flux.globals('d').own") == "a\n")
        #expect(shell.print("flux.globals('d').frame").contains("not this plugin's"))
        #expect(shell.print("flux.globals('d').cfunction").contains("not this plugin's"))
        #expect(shell.print("flux.globals('d').hook").contains("debug.sethook is not available to plugins"))
        #expect(shell.print("flux.globals('d').hook").contains("debug.sethook is not available to plugins"))
    }

    @Test("a plugin's handler cannot reach the draft of another owner's handler through debug.getlocal")
    func draftUnreachable() throws {
        #expect(shell.print(#"flux.store{name = "vault", state = {balance = 10}, on = {["vault.add"] = function(s, a) s.balance = s.balance + report(a) end}}"#) == "")
        // The session hands a plugin's function to its own handler: the function still cannot look into the frame.
        try write("spy.lua", #"""
        flux.store{name = "spy", state = {}, on = {["spy.arm"] = function(s) return s end}}
        peek = function()
          local ok, message = pcall(debug.getlocal, 3, 1)
          return ok and 1000000 or 1
        end
        """#)
        #expect(shell.type(":load \(path("spy.lua"))").ok)
        #expect(shell.print("report = flux.globals('spy').peek") == "")
        #expect(shell.print(":dispatch vault.add") == "")
        #expect(shell.print("flux.state('vault').balance") == "11\n")
    }

    // MARK: Transactions

    @Test("a failed dispatch takes back the view its handler replaced, the subscription it made and the cancel it made")
    func failedDispatchRollsBackEffects() throws {
        #expect(shell.print(#"""
        flux.view("tv", {store = "ticTacToe", render = function() return {sections = {{header = "old", cells = {}}}} end})
        kept = flux.subscribe("ticTacToe", function() end)
        flux.store{name = "bad", state = {}, on = {["bad.go"] = function()
          flux.view("tv", {store = "ticTacToe", render = function() return {sections = {{header = "new", cells = {}}}} end})
          made = flux.subscribe("ticTacToe", function() end)
          kept:cancel()
          error("refused")
        end}}
        """#) == "")
        #expect(shell.type(":dispatch bad.go").errors.contains("refused"))
        #expect(shell.print("flux.model('tv').sections[1].header") == "old\n")
        #expect(shell.print("made:active()") == "false\n")
        #expect(shell.print("kept:active()") == "true\n")
        #expect(shell.print("#flux.subscriptions()") == "1\n")
    }

    @Test("a handler's cancel takes effect when its dispatch succeeds")
    func succeededDispatchCancels() throws {
        #expect(shell.print(#"""
        heard = 0 kept = flux.subscribe("ticTacToe", function() heard = heard + 1 end)
        flux.store{name = "stop", state = {}, on = {["ticTacToe.placeToken"] = function() kept:cancel() end}}
        """#) == "")
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 0}") == "")
        #expect(shell.print("kept:active(), heard") == "false\t1\n")
    }

    @Test("a failed :reload keeps the subscription its new run cancelled")
    func failedReloadKeepsCancelled() throws {
        try write("r.lua", "flux.subscribe('ticTacToe', function() end)")
        #expect(shell.type(":load \(path("r.lua"))").ok)
        try write("r.lua", "for _, s in ipairs(flux.subscriptions()) do s:cancel() end error('broken')")
        #expect(shell.type(":reload r").errors.contains("broken"))
        #expect(shell.print("#flux.subscriptions(), flux.subscriptions()[1]:active()") == "1\ttrue\n")
    }

    @Test("a watch follows its view: redefined, it diffs the new provider's models; unloaded, it ends")
    func watchFollowsView() throws {
        try write("v.lua", #"""
        flux.view("moves", {store = "ticTacToe", render = function(s)
          return {sections = {{header = "old", cells = {{id = "i", title = s.gameInstruction}}}}}
        end})
        """#)
        #expect(shell.type(":load \(path("v.lua"))").ok)
        #expect(shell.print("seen = '' w = flux.watch('moves', function(d) seen = d.text end)") == "")
        try write("v.lua", #"""
        flux.view("moves", {store = "ticTacToe", render = function(s)
          return {sections = {{header = "new", cells = {{id = "i", title = "now " .. s.gameInstruction}}}}}
        end})
        """#)
        #expect(shell.type(":reload v").ok)
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 0}") == "")
        #expect(shell.print("seen").contains("now O's turn"))
        #expect(shell.type(":unload v").ok)
        #expect(shell.print("w:active()") == "false\n")
    }

    @Test("a watch of a plugin's view goes on through a failed :reload, diffing the old provider")
    func watchSurvivesFailedReload() throws {
        try write("v.lua", #"""
        flux.view("moves", {store = "ticTacToe", render = function(s)
          return {sections = {{header = "old", cells = {{id = "i", title = "old " .. s.gameInstruction}}}}}
        end})
        """#)
        #expect(shell.type(":load \(path("v.lua"))").ok)
        #expect(shell.print("seen = '' w = flux.watch('moves', function(d) seen = d.text end)") == "")
        try write("v.lua", #"flux.view("moves", {store = "ticTacToe", render = function() return {sections = {}} end}) error("broken")"#)
        #expect(shell.type(":reload v").errors.contains("broken"))
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 0}") == "")
        #expect(shell.print("w:active()") == "true\n")
        #expect(shell.print("seen").contains("old O's turn"))
    }

    @Test("a subscription to an unloaded plugin's store is no longer active")
    func subscriptionToUnloadedStore() throws {
        try write("b.lua", Self.bank)
        #expect(shell.type(":load \(path("b.lua"))").ok)
        #expect(shell.print("s = flux.subscribe('bank', function() end)") == "")
        #expect(shell.type(":unload b").ok)
        #expect(shell.print("s:active()") == "false\n")
    }

    // MARK: Wrong behaviour mended

    @Test("an error whose text changes on every change is counted by where it was raised: one traceback, one summary")
    func floodCountedByPlace() throws {
        #expect(shell.print(#"""
        flux.store{name = "n", state = {n = 0}, on = {["n.up"] = function(s) s.n = s.n + 1 end}}
        flux.subscribe("n", function(s, previous) if previous then error("bad n=" .. s.n) end end)
        """#) == "")
        let flood = shell.type("for i = 1, 200 do flux.dispatch('n.up') end")
        #expect(flood.errors.components(separatedBy: "stack traceback").count == 2)
        #expect(flood.errors.contains("the same error 199 more times"))
    }

    @Test("escape sequences in names are refused and in error messages shown escaped, never sent to the terminal")
    func escapesEscaped() throws {
        let name = shell.type("flux.store{name = 'x\\27]0;pwned\\7', state = {}}")
        #expect(name.errors.contains("holds a control character"))
        #expect(!name.errors.contains("\u{1B}"))
        let message = shell.type("error('\\27[2J\\27]0;pwned\\7gone')")
        #expect(!message.errors.contains("\u{1B}"))
        #expect(message.errors.contains("\\27[2J"))
    }

    @Test("two canonically equivalent spellings of one store name within one owner are refused, as across owners")
    func canonicalNames() throws {
        #expect(shell.print(#"flux.store{name = "caf\u{E9}", state = {n = 1}}"#) == "")
        let again = shell.type(#"flux.store{name = "cafe\u{301}", state = {n = 2}}"#)
        #expect(again.errors.contains("same name in another Unicode form"))
        #expect(shell.print(#"flux.store{name = "caf\u{E9}", state = {n = 3}}"#) == "")
    }

    @Test("a {\"states\": …} line with a board shorter than its geometry is refused with the reason; nothing is applied and :render still works")
    func shortBoardRefused() throws {
        let state = #"{\"board\":[null,null,null,null,null],\"columns\":3,\"gameInstruction\":\"X's turn\",\"lineLength\":3,\"playerToMove\":\"X\",\"rows\":3,\"winningLine\":[]}"#
        let log = path("short.log")
        try (#"{"states":[{"store":"ticTacToe","format":"json","state":""# + state + #""}],"label":"forged","time":1795000002.0}"# + "\n")
            .write(toFile: log, atomically: true, encoding: .utf8)
        let replay = shell.type(":replay \(log)")
        #expect(!replay.ok)
        #expect(replay.errors.contains("the board has 5 cells; 3 × 3 needs 9"))
        #expect(shell.print(":render ticTacToe").contains("X's turn"))
    }
}
