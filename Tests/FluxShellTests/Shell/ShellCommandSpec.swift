import Foundation
import FluxShell
import Testing

@Suite("The shell's : commands")
struct ShellCommandSpec {
    @Test(":help lists every command; :help <command> shows its usage")
    func help() {
        let shell = ShellTranscript()
        let all = shell.print(":help")
        for name in ["help", "stores", "state", "actions", "dispatch", "views", "render", "watch", "unwatch",
                     "undo", "redo", "history", "load", "reload", "record", "replay", "quit"] {
            #expect(all.contains("  :\(name)"), "\(name) is listed")
        }
        #expect(shell.print(":help dispatch").hasPrefix(":dispatch <action> [lua-table]\n"))
        #expect(shell.type(":help nothing").errors == "unknown command ':nothing' (try :help)\n")
    }

    @Test(":stores, :views and :actions list names; a store's actions are its own")
    func listings() {
        let shell = ShellTranscript()
        #expect(shell.print(":stores") == "annotationFilter\nissues\nvisibleIssues\nticTacToe\nconnectFour\n")
        #expect(shell.print(":views").contains("ticTacToe         renders ticTacToe\n"))
        #expect(shell.print(":actions ticTacToe") == "ticTacToe.placeToken {index: integer}\nticTacToe.reset\n")
        #expect(shell.print(":actions").contains("annotationFilter.toggleFilter {filter: string}\n"))
        #expect(shell.type(":actions nowhere").errors.hasPrefix("unknown store 'nowhere'"))
        #expect(ShellTranscript(features: false).print(":stores") == "no stores\n")
    }

    @Test(":dispatch with a Lua table changes the store; :state and :render show it")
    func dispatchStateRender() {
        let shell = ShellTranscript()
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 4}") == "")
        #expect(shell.print(":state ticTacToe").contains("gameInstruction = \"O's turn\""))
        #expect(shell.print(":render ticTacToe").contains(". X ."))
        #expect(shell.print(":state").contains("ticTacToe = {"))
        #expect(shell.print(":dispatch ticTacToe.reset") == "")
        #expect(shell.print("flux.state('ticTacToe').gameInstruction") == "X's turn\n")
    }

    @Test("a bad :dispatch says what was wrong and changes nothing")
    func badDispatch() {
        let shell = ShellTranscript()
        let before = shell.print(":state")
        #expect(shell.type(":dispatch").errors.hasPrefix("usage: :dispatch <action> [lua-table]"))
        #expect(shell.type(":dispatch nope.nothing").errors == "unknown action 'nope.nothing' (:actions lists them)\n")
        #expect(shell.type(":dispatch ticTacToe.placeToken {index = }").errors.hasPrefix("payload is not a Lua value"))
        #expect(shell.type(":dispatch ticTacToe.placeToken {index = 'x'}").errors.contains("field 'index'"))
        #expect(shell.type(":dispatch ticTacToe.placeToken {index = 99}").errors.contains("not on the board"))
        #expect(shell.print(":state") == before)
    }

    @Test(":watch prints a view's changes after each action; :unwatch stops it")
    func watch() {
        let shell = ShellTranscript()
        #expect(shell.print(":watch ticTacToe").hasPrefix("watching ticTacToe"))
        #expect(shell.type(":watch ticTacToe").errors == "already watching 'ticTacToe'\n")
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 0}") ==
            "ticTacToe.placeToken {index = 0}\n  ticTacToe.board[1]: nil → \"X\"\n"
            + "  ticTacToe.gameInstruction: \"X's turn\" → \"O's turn\"\n  ticTacToe.playerToMove: \"X\" → \"O\"\n"
            + "ticTacToe:\n~ section O's turn (header X's turn → O's turn)\n~ O's turn: X . . (title . . . → X . .)\n")
        #expect(shell.type(":unwatch annotationFilter").errors.hasPrefix("not watching 'annotationFilter'"))
        #expect(shell.print(":unwatch ticTacToe") == "stopped watching ticTacToe\n")
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 1}") == "")
        #expect(shell.print(":unwatch") == "not watching any view\n")
        #expect(shell.type(":watch nothing").errors.hasPrefix("unknown view 'nothing'"))
    }

    @Test(":undo, :redo and :history travel one user step at a time")
    func history() {
        let shell = ShellTranscript()
        #expect(shell.print(":history") == "no history yet\n")
        #expect(shell.print(":undo") == "nothing to undo\n")
        shell.type(":dispatch ticTacToe.placeToken {index = 4}")
        shell.type(":dispatch ticTacToe.placeToken {index = 0}")
        #expect(shell.print(":undo") == "undid ticTacToe.placeToken\n")
        #expect(shell.print(":history") ==
            "  #1 ticTacToe.placeToken {index = 4}  → ticTacToe\n  ── now (:undo goes up, :redo down) ──\n  #2 ticTacToe.placeToken {index = 0}  → ticTacToe  (undone)\n")
        #expect(shell.print("flux.state('ticTacToe').gameInstruction") == "O's turn\n")
        #expect(shell.print(":redo") == "redid ticTacToe.placeToken\n")
        #expect(shell.print(":redo") == "nothing to redo\n")
        #expect(shell.type(":undo now").errors == "usage: :undo [count]  — undo the last change (a whole group at once), or count of them\n")
    }

    @Test(":record writes a log that :replay reproduces in a fresh shell")
    func recordReplay() throws {
        let path = temporaryPath("game.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let shell = ShellTranscript()
        #expect(shell.type(":record").errors.hasPrefix("usage: :record [file]"))
        #expect(shell.print(":record \(path)").hasPrefix("recording to \(path)"))
        #expect(shell.type(":record \(path)").errors.hasPrefix("already recording"))
        shell.type(":dispatch ticTacToe.placeToken {index = 4}")
        shell.type(":dispatch ticTacToe.placeToken {index = 8}")
        shell.type(":undo")
        #expect(shell.print(":record") == "recorded 3 entries to \(path)\n")
        let state = shell.print(":state ticTacToe")

        let fresh = ShellTranscript()
        #expect(fresh.print(":replay \(path)") == "replayed 3 entries from \(path)\n")
        #expect(fresh.print(":state ticTacToe") == state)
    }

    @Test("a log that does not parse is refused whole: nothing of it is applied")
    func replayRefused() throws {
        let path = temporaryPath("bad.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        {"name":"ticTacToe.placeToken","payload":{"index":4}}
        {"name":"ticTacToe.placeToken","payload":{"index":
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let shell = ShellTranscript()
        let before = shell.print(":state")
        #expect(shell.type(":replay \(path)").errors == "\(path): line 2: not a log entry: not JSON; nothing of it was applied\n")
        #expect(shell.print(":state") == before)
        #expect(shell.type(":replay").errors.hasPrefix("usage: :replay <file>"))
        #expect(shell.type(":replay /no/such/log").errors == "cannot open /no/such/log: no such file\n")
    }

    @Test(":load runs a plugin; :reload runs it again and its store keeps its state")
    func loadReload() throws {
        let path = temporaryPath("tally.lua")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        flux.store{name = "tally", state = {count = 0}, on = {
          ["tally.add"] = function(state) state.count = state.count + 1 return state end,
        }}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let shell = ShellTranscript()
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        #expect(shell.print(":load \(path)") == "loaded \(name)\n")
        shell.type(":dispatch tally.add")
        #expect(shell.print(":reload \(name)") == "reloaded \(name)\n")
        #expect(shell.print(":reload") == "reloaded \(name)\n")
        #expect(shell.print("flux.state('tally').count") == "1\n")
        #expect(shell.type(":reload other").errors.hasPrefix("unknown plugin 'other'"))
        #expect(shell.type(":load").errors.hasPrefix("usage: :load <file>"))
        #expect(shell.type(":load /no/such.lua").errors.hasPrefix("no plugin at /no/such.lua"))
        #expect(ShellTranscript().type(":reload").errors.hasPrefix("no plugins loaded"))
    }

    @Test(":quit ends the shell; an unknown command points to :help")
    func quitAndUnknown() {
        let shell = ShellTranscript()
        #expect(shell.type(":frobnicate").errors == "unknown command ':frobnicate' (try :help)\n")
        #expect(shell.type(":").errors.hasPrefix("a command name must follow ':'"))
        #expect(shell.type(":quit now").errors.hasPrefix("usage: :quit"))
        #expect(!shell.shell.isFinished)
        #expect(shell.type(":quit").ok)
        #expect(shell.shell.isFinished)
    }

    @Test("Tab offers commands, the names each command takes, paths, and Lua fields")
    func completion() {
        let shell = ShellTranscript().shell!
        func words(_ line: String, _ word: String) -> [String] {
            guard case let .words(candidates, _) = shell.completions(line: line, cursor: line.utf8.count, word: word) else { return [] }
            return candidates.filter { $0.hasPrefix(word) }
        }
        #expect(words(":di", ":di") == [":dispatch"])
        #expect(words(":render tic", "tic") == ["ticTacToe"])
        #expect(words(":dispatch ticTacToe.p", "ticTacToe.p") == ["ticTacToe.placeToken"])
        #expect(words(":state ", "").contains("issues"))
        #expect(shell.completions(line: ":load ", cursor: 6, word: "") == .files)
        #expect(shell.completions(line: ":replay x", cursor: 9, word: "x") == .files)
        #expect(words("flux.di", "flux.di") == ["flux.dispatch"])
        #expect(words("print(string.fo", "string.fo") == ["string.format"])
        #expect(words("pri", "pri") == ["print"])
        #expect(words(":help ren", "ren") == ["render"])
        #expect(words(":help flux.di", "flux.di") == ["flux.dispatch"])
        #expect(words(":help ", "").contains("flux") && words(":help ", "").contains("quit"))
        #expect(words(":log o", "o") == ["on", "off"])
        #expect(words(":graph ", "") == ["--dot"])
        #expect(words(":history a", "a") == ["all"])
        #expect(words(":session c", "c") == ["compact"])
        // The names a flux function takes, inside its first argument's quotes, closed with the quote.
        #expect(shell.completions(line: "flux.state('tic", cursor: 15, word: "tic") == .words(shell.dispatcher.stores.map(\.name), terminator: "'"))
        #expect(words("x = flux.dispatch(\"ticTacToe.p", "ticTacToe.p") == ["ticTacToe.placeToken"])
        #expect(words("print(flux.render( \"ticT", "ticT") == ["ticTacToe"])
        #expect(words("print(\"ticT", "ticT") == [])
    }

    @Test(":help and Tab after a colon offer the same commands, in the same order")
    func helpAndCompletionAgree() {
        let shell = ShellTranscript()
        let listed = shell.print(":help").split(separator: "\n").filter { $0.hasPrefix("  :") }
            .map { String($0.dropFirst(2).prefix { $0 != " " }) }
        guard case let .words(offered, _) = shell.shell.completions(line: ":", cursor: 1, word: ":") else {
            Issue.record("no command offered")
            return
        }
        #expect(offered == listed)
        #expect(listed.contains(":dispatch") && listed.contains(":record!") && listed.contains(":quit"))
    }

    @Test("a payload completes to the fields of the action before it, with their `=`, once its brace is typed")
    func payloadCompletion() {
        let shell = ShellTranscript().shell!
        let line = ":dispatch ticTacToe.placeToken {i"
        #expect(shell.completions(line: line, cursor: line.utf8.count, word: "i") == .words(["index = "], terminator: nil))
        // What the completion left: a second Tab offers the field no more.
        let completed = ":dispatch ticTacToe.placeToken {index = "
        #expect(shell.completions(line: completed, cursor: completed.utf8.count, word: "") == .words([], terminator: nil))
        let given = ":dispatch annotationFilter.toggleFilter {filter = 'a', "
        #expect(shell.completions(line: given, cursor: given.utf8.count, word: "") == .words([], terminator: nil))
        // The same in Lua, in flux.dispatch's payload.
        let lua = "flux.dispatch('ticTacToe.placeToken', {i"
        #expect(shell.completions(line: lua, cursor: lua.utf8.count, word: "i") == .words(["index = "], terminator: nil))
        let luaGiven = "x = flux.dispatch(\"annotationFilter.toggleFilter\", {filter = 'a', "
        #expect(shell.completions(line: luaGiven, cursor: luaGiven.utf8.count, word: "") == .words([], terminator: nil))
    }
}

/// A path in the temporary folder that no other test uses.
func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("fluxsh-\(UUID().uuidString)-\(name)").path
}
