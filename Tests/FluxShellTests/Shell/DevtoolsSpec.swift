@testable import FluxShell
import Foundation
import Testing

/// The devtools' output, golden at 80 columns without color: `:log`, `:watch`'s heading, `:actions`
/// with payload fields, `:history`, `:show`, `:goto`, `:undo N`, `:graph`, `:help flux.NAME`.
@Suite struct DevtoolsSpec {
    /// A shell with a Lua store that waits for ticTacToe and refuses an empty title, and a view over it.
    /// Defines the todo store again, its `todo.add` payload declared: `{title = "string", due = "number?"}`.
    static func declareTodoFields(_ shell: ShellTranscript) {
        let defined = shell.type("""
            flux.store{name = "todo", state = {items = {}}, wait_for = {"ticTacToe"},
              actions = {["todo.add"] = {title = "string", due = "number?"}}, on = {
              ["todo.add"] = function(state, action) table.insert(state.items, {title = action.title, done = false}) end}}
            """)
        #expect(defined.ok, "\(defined.errors)")
    }

    static func shellWithTodo(unicode: Bool = true) -> ShellTranscript {
        let shell = ShellTranscript(unicode: unicode)
        let defined = shell.type("""
            flux.store{name = "todo", state = {items = {}}, wait_for = {"ticTacToe"}, on = {
              ["todo.add"] = function(state, action)
                if action.title == "" then error("a todo needs a title", 0) end
                table.insert(state.items, {title = action.title, done = false})
                return state
              end}}
            flux.view("todo", {store = "todo", render = function(state)
              local cells = {}
              for i, item in ipairs(state.items) do cells[i] = {title = item.title} end
              return {sections = {{header = "Todo", cells = cells}}}
            end})
            """)
        #expect(defined.ok, "\(defined.errors)")
        return shell
    }

    @Test(":log on prints each action with every changed path, old → new; a failed action its error")
    func log() {
        let shell = Self.shellWithTodo()
        #expect(shell.print(":log") == "not logging (:log on starts)\n")
        #expect(shell.print(":log on") == "logging every action: its payload and what it changed (:log off stops)\n")
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 4}") == """
            ticTacToe.placeToken {index = 4}
              ticTacToe.board[5]: nil → "X"
              ticTacToe.gameInstruction: "X's turn" → "O's turn"
              ticTacToe.playerToMove: "X" → "O"

            """)
        #expect(shell.print(":dispatch todo.add {title = \"milk\"}") == """
            todo.add {title = "milk"}
              todo.items[1]: nil → {done = false, title = "milk"}

            """)
        let failed = shell.type(":dispatch todo.add {title = \"\"}")
        #expect(!failed.ok)
        #expect(failed.output == """
            todo.add {title = ""}
              failed: store 'todo' failed on 'todo.add': a todo needs a title

            """)
        let taken = shell.type(":dispatch ticTacToe.placeToken {index = 4}")
        #expect(taken.output == """
            ticTacToe.placeToken {index = 4}
              failed: store 'ticTacToe' failed on 'ticTacToe.placeToken': cell 4 is already taken by X

            """)
        #expect(shell.print("flux.state('todo').items[1].title") == "milk\n")
        // A large value is cut to the line, however long it is.
        let long = shell.print(":dispatch todo.add {title = string.rep('long ', 1000)}")
        #expect(long == """
            todo.add {title = "long long long long long long long long long long long long …
              todo.items[2]: nil → {done = false, title = "long long long long long long lo…

            """)
        #expect(shell.print(":log off") == "stopped logging\n")
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 0}") == "")
        #expect(shell.print("flux.log(true)") == "")
        #expect(shell.print("flux.dispatch('ticTacToe.reset')").hasPrefix("ticTacToe.reset\n  ticTacToe.board[1]: \"O\" → nil\n"))
        #expect(shell.type("flux.log('yes')").errors.hasPrefix("stdin:1: bad argument #1 to 'log' (boolean expected, got string)"))
    }

    @Test(":log and :show name a Lua table's integer keys as :state does, [1000], in the order of the numbers")
    func integerKeys() {
        let shell = ShellTranscript()
        let defined = shell.type("""
            flux.store{name = "sparse", state = {t = {}}, on = {
              ["sparse.fill"] = function(state) state.t[1000] = "a"; state.t[2] = "b"; state.t["2"] = "text" end}}
            """)
        #expect(defined.ok, "\(defined.errors)")
        shell.type(":log on")
        let changes = """
              sparse.t[2]: nil → "b"
              sparse.t[1000]: nil → "a"
              sparse.t["2"]: nil → "text"
            """
        #expect(shell.print(":dispatch sparse.fill") == "sparse.fill\n" + changes + "\n")
        #expect(shell.print(":show 1") == "#1 sparse.fill\n" + changes + "\n")
    }

    @Test(":watch names the action and shows the state diff above the table patch")
    func watch() {
        let shell = Self.shellWithTodo()
        #expect(shell.print(":watch todo") == "watching todo: its changes print after every action\n")
        #expect(shell.print(":dispatch todo.add {title = \"milk\"}") == """
            todo.add {title = "milk"}
              todo.items[1]: nil → {done = false, title = "milk"}
            todo:
            + Todo: milk

            """)
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 4}") == "")
    }

    @Test(":actions lists payload fields: derived from a Swift action's Decodable, declared for a Lua one")
    func actions() {
        let shell = Self.shellWithTodo()
        #expect(shell.print(":actions ticTacToe") == "ticTacToe.placeToken {index: integer}\nticTacToe.reset\n")
        #expect(shell.print(":actions issues") == """
            issues.assign {id: integer, assignee: string?}
            issues.close {id: integer}
            issues.create {title: string, assignee: string?}
            issues.edit {id: integer, title: string}
            issues.reopen {id: integer}
            issues.selectBlueprint {blueprint: string}

            """)
        #expect(shell.print(":actions todo") == "todo.add\n")
        Self.declareTodoFields(shell)
        #expect(shell.print(":actions todo") == "todo.add {due: number?, title: string}\n")
    }

    @Test("Tab after :dispatch NAME { completes the payload's field names not given yet")
    func completesFields() {
        let transcript = Self.shellWithTodo()
        let shell = transcript.shell!
        func complete(_ line: String, _ word: String) -> Completions {
            shell.completions(line: line, cursor: line.utf8.count, word: word)
        }
        #expect(complete(":dispatch ticTacToe.placeToken {", "") == .words(["index = "], terminator: nil))
        #expect(complete(":dispatch ticTacToe.placeToken {in", "in") == .words(["index = "], terminator: nil))
        #expect(complete(":dispatch issues.edit {id = 3, ", "") == .words(["title = "], terminator: nil))
        #expect(complete(":dispatch todo.add {", "") == .words([], terminator: nil))
        Self.declareTodoFields(transcript)
        #expect(complete(":dispatch todo.add {", "") == .words(["due = ", "title = "], terminator: nil))
        #expect(complete(":dispatch tic", "tic") == .words(shell.dispatcher.registry.names))
    }

    @Test(":history shows payloads and changed stores; :show N the diff of a step; :goto N and :undo N travel")
    func timeTravel() {
        let shell = Self.shellWithTodo()
        shell.type(":dispatch todo.add {title = \"milk\"}")
        shell.type(":dispatch todo.add {title = \"\"}")
        shell.type("flux.group('two', function() flux.dispatch('todo.add', {title = 'eggs'}) flux.dispatch('ticTacToe.placeToken', {index = 2}) end)")
        shell.type("flux.group('doomed', function() flux.dispatch('todo.add', {title = 'tea'}) error('no', 0) end)")
        shell.type(":dispatch ticTacToe.placeToken {index = 4}")
        #expect(shell.print(":history") == """
              #1 todo.add {title = "milk"}  → todo
              #2 two (2 actions)  → todo, ticTacToe
              #3 ticTacToe.placeToken {index = 4}  → ticTacToe
              ── now (:undo goes up, :redo down) ──

            """)
        #expect(shell.print(":show 2") == """
            #2 two
               todo.add {title = "eggs"}
               ticTacToe.placeToken {index = 2}
              todo.items[2]: nil → {done = false, title = "eggs"}
              ticTacToe.board[3]: nil → "X"
              ticTacToe.gameInstruction: "X's turn" → "O's turn"
              ticTacToe.playerToMove: "X" → "O"

            """)
        #expect(shell.print(":goto #1") == "at undo step #1 of 3: after todo.add\n")
        #expect(shell.print("#flux.state('todo').items") == "1\n")
        #expect(shell.print(":history") == """
              #1 todo.add {title = "milk"}  → todo
              ── now (:undo goes up, :redo down) ──
              #2 two (2 actions)  → todo, ticTacToe  (undone)
              #3 ticTacToe.placeToken {index = 4}  → ticTacToe  (undone)

            """)
        // An undone step shows the same change as when it was done.
        #expect(shell.print(":show #3") == """
            #3 ticTacToe.placeToken {index = 4}  (undone)
              ticTacToe.board[5]: nil → "O"
              ticTacToe.gameInstruction: "O's turn" → "X's turn"
              ticTacToe.playerToMove: "O" → "X"

            """)
        #expect(shell.print(":goto 3") == "at undo step #3 of 3: after ticTacToe.placeToken\n")
        #expect(shell.print("flux.state('ticTacToe').board[5]") == "O\n")
        #expect(shell.print(":goto 3") == "already at undo step #3\n")
        shell.type("heard = {} todoHeard = flux.subscribe('todo', function(s) heard[#heard + 1] = #s.items end) heard = {}")
        #expect(shell.print(":undo 2") == "undid 2 steps: ticTacToe.placeToken, two\n")
        #expect(shell.print(":undo 1") == "undid todo.add\n")
        #expect(shell.print(":redo 2") == "redid 2 steps: todo.add, two\n")
        #expect(shell.print("table.concat(heard, ' ')") == "1 0 2\n", "several steps are heard once, where they end")
        #expect(shell.print(":undo 2") == "undid 2 steps: two, todo.add\n")
        #expect(shell.print(":redo 1") == "redid todo.add\n")
        #expect(shell.print(":redo 5") == "redid 2 steps: two, ticTacToe.placeToken\n")
        // A subscriber hears where a travel ends, once, not each step undone on the way.
        shell.type("heard = {}")
        #expect(shell.print(":goto 0") == "at undo step #0 of 3 (before the first)\n")
        #expect(shell.print("#flux.state('todo').items") == "0\n")
        #expect(shell.print("table.concat(heard, ' ')") == "0\n")
        #expect(shell.type(":show 4").errors == "no step #4: :history lists steps #1-#3\n")
        #expect(shell.type(":goto 4").errors == "no step #4: :history lists steps #1-#3 (#0 is before the first)\n")
        // The lowest whole number is a step like any other that is not there, not an overflow.
        #expect(shell.type(":show -9223372036854775808").errors.hasPrefix("usage: :show"))
        #expect(shell.type(":show 0").errors == "no step #0: :history lists steps #1-#3\n")
    }

    @Test(":history marks now in the terminal's characters, ASCII without UTF-8, and shorter on a narrow terminal")
    func historyMarker() {
        let ascii = ShellTranscript(unicode: false)
        ascii.type(":dispatch ticTacToe.placeToken {index = 4}")
        #expect(ascii.print(":history") == "  #1 ticTacToe.placeToken {index = 4}  -> ticTacToe\n  -- now (:undo goes up, :redo down) --\n")
        let narrow = ShellTranscript(width: 30)
        narrow.type(":dispatch ticTacToe.placeToken {index = 4}")
        narrow.type(":undo")
        #expect(narrow.print(":history") == "  ── now ──\n  #1 ticTacToe.placeToken {inde…\n     → ticTacToe  (undone)\n")
    }

    @Test(":log and :show on a 30-column terminal keep every line within it")
    func narrowLog() {
        let shell = ShellTranscript(width: 30)
        shell.type(":log on")
        let logged = shell.print(":dispatch ticTacToe.placeToken {index = 4}")
        #expect(logged == """
            ticTacToe.placeToken {index =…
              ticTacToe.board[5]:
                  nil → "X"
              ticTacToe.gameInstruction:
                  "X's turn" → "O's turn"
              ticTacToe.playerToMove:
                  "X" → "O"

            """)
        #expect(shell.print(":show 1").split(separator: "\n").allSatisfy { $0.count <= 30 })
    }

    @Test("a group of many actions is one step that keeps its first actions and counts the rest")
    func bigGroup() {
        let shell = Self.shellWithTodo()
        shell.type("flux.group('many', function() for i = 1, 150 do flux.dispatch('todo.add', {title = 't' .. i}) end end)")
        #expect(shell.print(":history") == "  #1 many (150 actions)  → todo\n  ── now (:undo goes up, :redo down) ──\n")
        let lines = shell.print(":show 1").split(separator: "\n").map(String.init)
        #expect(lines.first == "#1 many")
        #expect(lines[1] == "   todo.add {title = \"t1\"}")
        #expect(lines[100] == "   todo.add {title = \"t100\"}")
        #expect(lines[101] == "   … and 50 more actions (a step keeps its first 100)")
        #expect(lines[102] == "  todo.items[1]: nil → {done = false, title = \"t1\"}")
        // :show is the full diff.
        #expect(lines.last == "  todo.items[150]: nil → {done = false, title = \"t150\"}")
        #expect(lines.count == 252)
    }

    @Test(":history past the undo limit lists the last 100 steps with their own payloads")
    func pastTheLimit() {
        let shell = Self.shellWithTodo()
        shell.type("for i = 1, 250 do flux.dispatch('todo.add', {title = 't' .. i}) end")
        let lines = shell.print(":history").split(separator: "\n").map(String.init)
        #expect(lines.count == 101)
        #expect(lines.first == "    #1 todo.add {title = \"t151\"}  → todo")
        #expect(lines[99] == "  #100 todo.add {title = \"t250\"}  → todo")
    }

    @Test(":graph names the wait_for its store's actions will fail on: a cycle, a store that is not there")
    func graphProblems() {
        let shell = ShellTranscript(features: false)
        let defined = shell.type("""
            flux.store{name = "a", state = {}, wait_for = {"b"}, on = {["x.go"] = function() end}}
            flux.store{name = "b", state = {}, wait_for = {"c", "ghost"}, on = {["x.go"] = function() end}}
            flux.store{name = "c", state = {}, wait_for = {"a"}, on = {["x.go"] = function() end}}
            flux.store{name = "d", state = {}, wait_for = {"a"}, on = {["x.go"] = function() end}}
            """)
        #expect(defined.ok, "\(defined.errors)")
        #expect(shell.print(":graph") == """
            a  (Lua)
              └─ waits for b  (a cycle: a → b → c → a)
            b  (Lua)
              ├─ waits for c  (a cycle: b → c → a → b)
              └─ waits for ghost  (not a store: its actions fail)
            c  (Lua)
              └─ waits for a  (a cycle: c → a → b → c)
            d  (Lua)
              └─ waits for a

            """)
        let dot = shell.print(":graph --dot")
        #expect(dot.contains(#"  "store:b" -> "store:ghost" [label="wait_for: not a store: its actions fail", color=red];"#))
        #expect(dot.contains(#"  "store:d" -> "store:a" [label="wait_for"];"#))
        #expect(shell.type(":dispatch x.go").errors.contains("wait"), "the dispatch fails as :graph said")
    }

    @Test(":graph draws stores, wait_for edges, derived stores and views; ASCII without UTF-8; --dot for Graphviz")
    func graph() {
        let tree = """
            annotationFilter  (Swift)
              └─ view annotationFilter
            issues  (Swift)
              └─ view issues
            visibleIssues  (Swift, derived: sees every action)
              └─ view visibleIssues
            ticTacToe  (Swift)
              └─ view ticTacToe
            connectFour  (Swift)
              └─ view connectFour
            todo  (Lua)
              ├─ waits for ticTacToe
              └─ view todo

            """
        #expect(Self.shellWithTodo().print(":graph") == tree)
        let ascii = tree.replacingOccurrences(of: "└─", with: "`-").replacingOccurrences(of: "├─", with: "|-")
        #expect(Self.shellWithTodo(unicode: false).print(":graph") == ascii)
        let dot = Self.shellWithTodo().print(":graph --dot")
        #expect(dot.hasPrefix("digraph flux {\n  rankdir=LR;\n"))
        #expect(dot.contains("  \"store:visibleIssues\" [label=\"visibleIssues (Swift)\", shape=box, style=dashed];\n"))
        #expect(dot.contains("  \"store:todo\" -> \"store:ticTacToe\" [label=\"wait_for\"];\n"))
        #expect(dot.contains("  \"view:todo\" -> \"store:todo\" [label=\"renders\"];\n"))
        #expect(dot.hasSuffix("}\n"))
    }

    @Test(":help flux.NAME explains every function of the flux module; README's API table is the same table")
    func help() throws {
        let shell = ShellTranscript()
        #expect(shell.print(":help flux.dispatch") == """
            flux.dispatch(name, [payload]), flux.dispatch{type = name, …}
              dispatches an action; errors (unknown action, bad payload — a wrong type, a
              missing field, a field the action does not have — a handler's error, dispatch
              inside a handler) are Lua errors and change nothing
              example: flux.dispatch("ticTacToe.placeToken", {index = 4})

            """)
        let all = shell.print(":help").split(separator: "\n")
        #expect(all.allSatisfy { $0.count <= 80 }, "\(all.filter { $0.count > 80 })")
        #expect(all.contains("  :log [on|off]                   after every action, print its payload and each"))
        #expect(all.contains("                                  path it changed"))
        let functions = shell.print(":help flux").split(separator: "\n")
        #expect(functions.allSatisfy { $0.count <= 80 }, "\(functions.filter { $0.count > 80 })")
        #expect(functions.contains("  flux.inspect(value)           the text the prompt prints for `value`"))
        #expect(functions.last == ":help flux.NAME shows one with an example.")
        #expect(shell.print(":help log") == ":log [on|off]\n  after every action, print its payload and each path it changed\n")
        let names = shell.print("local t = {} for k in pairs(flux) do t[#t + 1] = k end table.sort(t) return table.concat(t, ' ')")
        #expect(names.dropLast().split(separator: " ").map(String.init) == FluxReference.functions.map(\.name).sorted())
        for name in FluxReference.functions.map(\.name) {
            #expect(shell.print(":help flux.\(name)").hasPrefix("flux.\(name)"))
        }
        #expect(shell.type(":help flux.nope").errors == "flux has no function 'nope' (:help flux lists them)\n")
        #expect(shell.type(":help flux.dispach").errors == "flux has no function 'dispach': did you mean 'dispatch'? (:help flux lists them)\n")
        // docs/lua-api.md is made from the same table: DocsSpec.luaAPI.
    }

    @Test(":help and :help flux on a narrow terminal put each summary under its name, within the width")
    func narrowHelp() {
        let shell = ShellTranscript(width: 40)
        for topic in [":help", ":help flux"] {
            let lines = shell.print(topic).split(separator: "\n")
            // Only a name longer than the terminal (a flux signature) may pass its edge.
            let summaries = lines.filter { !$0.hasPrefix("  :") && !$0.hasPrefix("  flux.") }
            #expect(summaries.allSatisfy { $0.count <= 40 }, "\(summaries.filter { $0.count > 40 })")
        }
        let help = shell.print(":help").split(separator: "\n").map(String.init)
        let log = help.firstIndex(of: "  :log [on|off]")
        #expect(log.map { help[$0 + 1] } == "      after every action, print its")
        let functions = shell.print(":help flux").split(separator: "\n").map(String.init)
        let inspect = functions.firstIndex(of: "  flux.inspect(value)")
        #expect(inspect.map { functions[$0 + 1] } == "      the text the prompt prints for")
    }

    @Test("flux.inspect returns what the prompt prints; flux.print prints it")
    func inspect() {
        let shell = ShellTranscript()
        let value = "{1, 2, name = 'x', nested = {deep = true}}"
        #expect(shell.print("=flux.inspect(\(value))") == shell.print("=\(value)"))
        #expect(shell.print("=flux.inspect('a')") == "\"a\"\n")
        #expect(shell.print("flux.print(\(value), 'text', 3)") == "{1, 2, name = \"x\", nested = {deep = true}}\ttext\t3\n")
        #expect(shell.type("flux.inspect()").errors.hasPrefix("stdin:1: bad argument #1 to 'inspect' (value expected)"))
    }
}
