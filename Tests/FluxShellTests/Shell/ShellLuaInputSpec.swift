import FluxShell
import Testing

@Suite("Lua typed at the prompt")
struct ShellLuaInputSpec {
    @Test("an expression prints its value; a leading = means return; several results are tab-separated")
    func expressions() {
        let shell = ShellTranscript()
        #expect(shell.print("1+1") == "2\n")
        #expect(shell.print("=1, 'two', nil") == "1\ttwo\tnil\n")
        #expect(shell.print("x = 5") == "")
        #expect(shell.print("x * 2") == "10\n")
    }

    @Test("tables print in constructor form: keys sorted, short ones on one line, cycles marked")
    func tables() {
        let shell = ShellTranscript()
        #expect(shell.print("{b = 2, a = {1, 2, 'x'}, [10] = true}") == "{[10] = true, a = {1, 2, \"x\"}, b = 2}\n")
        #expect(shell.print("t = {name = 't'}; t.self = t; return t") == "{name = \"t\", self = <cycle>}\n")
        let long = shell.print("flux.state('ticTacToe')")
        #expect(long.hasPrefix("{\n  board = {},\n"))
        #expect(long.contains("  gameInstruction = \"X's turn\",\n"))
        #expect(shell.print("setmetatable({}, {__tostring = function() return 'a point' end})") == "a point\n")
    }

    @Test("a table goes on one line when it fits the terminal's width, else a field a line; flux.inspect the same")
    func tablesFitTheWidth() {
        let value = "{'aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', 'dddddddddd'}"
        let oneLine = "{\"aaaaaaaaaa\", \"bbbbbbbbbb\", \"cccccccccc\", \"dddddddddd\"}\n"
        #expect(ShellTranscript(width: 80).print(value) == oneLine)
        let narrow = ShellTranscript(width: 40)
        let lines = "{\n  \"aaaaaaaaaa\",\n  \"bbbbbbbbbb\",\n  \"cccccccccc\",\n  \"dddddddddd\",\n}\n"
        #expect(narrow.print(value) == lines)
        #expect(narrow.print("=flux.inspect(\(value))") == lines)
    }

    @Test("hostile metatables: tables print from their raw contents; __tostring and __name as lua prints them")
    func hostileMetatables() {
        let shell = ShellTranscript()
        // An __index that never returns would spin if the printer asked it for t[1], t[2], ….
        #expect(shell.print("setmetatable({}, {__index = function() while true do end end})") == "{}\n")
        #expect(shell.print("setmetatable({1, 2, x = 3}, {__index = function(_, k) return k end, __len = function() error('len') end, __pairs = function() error('pairs') end})")
                == "{1, 2, x = 3}\n")
        #expect(shell.print("setmetatable({a = 1}, {__metatable = false, __tostring = function() return 'hidden' end})") == "hidden\n")
        #expect(shell.print("t = setmetatable({}, {__name = 'Point'}); return t").hasPrefix("Point: 0x"))
        // A key's __tostring is not called to sort or print it.
        #expect(shell.print("{[setmetatable({}, {__tostring = function() error('boom') end})] = 1, [true] = 2, [false] = 3}")
                .hasPrefix("{[false] = 3, [true] = 2, [table: 0x"))
        #expect(shell.type("setmetatable({}, {__tostring = function() return {} end})").errors.contains("'__tostring' must return a string"))
        #expect(shell.print("'the shell goes on'") == "the shell goes on\n")
    }

    @Test("a script that takes the strings' metatable away or replaces table.pack still sees values printed")
    func strippedStringMetatable() {
        let shell = ShellTranscript()
        shell.type("debug.setmetatable('', nil); table.pack = nil")
        #expect(shell.print("{b = 2, a = 'x', ['not a name'] = true}") == "{a = \"x\", b = 2, [\"not a name\"] = true}\n")
        #expect(shell.print("flux.inspect({1, 2})") == "{1, 2}\n")
        #expect(shell.type("expect_error(function() error('boom') end, 'boom')").ok)
    }

    @Test("a state view a script kept prints its contents")
    func keptStateView() {
        let shell = ShellTranscript()
        shell.type("kept = nil; flux.subscribe('ticTacToe', function(state) kept = state end)")
        shell.type(":dispatch ticTacToe.placeToken {index = 4}")
        let printed = shell.print("kept")
        #expect(printed.contains("playerToMove = \"O\""), "\(printed)")
        shell.type("flux.store{name = 'notes', state = {items = {'a', 'b'}}, on = {['notes.add'] = function(s) return s end}}")
        shell.type("noteState = nil; flux.subscribe('notes', function(state) noteState = state end); flux.dispatch('notes.add')")
        #expect(shell.print("noteState") == "{items = {\"a\", \"b\"}}\n")
    }

    @Test("an error prints with its traceback and the shell goes on; an error object prints through __tostring")
    func errors() {
        let shell = ShellTranscript()
        let failed = shell.type("error('boom')")
        #expect(!failed.ok)
        #expect(failed.errors.hasPrefix("stdin:1: boom\nstack traceback:"))
        let object = shell.type("error(setmetatable({}, {__tostring = function() return 'custom failure' end}))")
        #expect(object.errors.hasPrefix("custom failure"))
        #expect(shell.type("error({})").errors.hasPrefix("(error object is a table value)"))
        #expect(shell.print("'still here'") == "still here\n")
    }

    @Test("an unfinished chunk asks for more; a finished one runs; a broken one is a syntax error")
    func continuation() {
        let shell = ShellTranscript().shell!
        guard case .incomplete = shell.compile("function twice(x)") else { Issue.record("expected more input"); return }
        guard case .incomplete = shell.compile("function twice(x)\n  return 2 * x") else { Issue.record("expected more input"); return }
        guard case let .chunk(chunk) = shell.compile("function twice(x)\n  return 2 * x\nend") else {
            Issue.record("expected a chunk"); return
        }
        #expect(shell.run(chunk))
        guard case let .failed(error) = shell.compile("x = = 1") else { Issue.record("expected a syntax error"); return }
        #expect(error.message.contains("unexpected symbol"))
        guard case .command(":stores") = shell.compile("  :stores") else { Issue.record("expected a command"); return }
    }

    @Test("_PROMPT and _PROMPT2 set the prompts")
    func prompts() {
        let transcript = ShellTranscript()
        let shell = transcript.shell!
        #expect(shell.prompt(continuation: false) == "flux> ")
        #expect(shell.prompt(continuation: true) == ">> ")
        transcript.type("_PROMPT = 'lua% '; _PROMPT2 = '... '")
        #expect(shell.prompt(continuation: false) == "lua% ")
        #expect(shell.prompt(continuation: true) == "... ")
    }

    @Test("LUA_INIT runs first: code, or @file")
    func luaInit() throws {
        let transcript = ShellTranscript()
        #expect(transcript.shell.runInit(environment: ["LUA_INIT": "greeting = 'hi'"]))
        #expect(transcript.print("greeting") == "hi\n")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("init-\(UUID()).lua").path
        try "from_file = 42".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(transcript.shell.runInit(environment: ["LUA_INIT_5_4": "@" + path, "LUA_INIT": "from_file = 0"]))
        #expect(transcript.print("from_file") == "42\n")
        #expect(!transcript.shell.runInit(environment: ["LUA_INIT": "error('bad init')"]))
    }

    @Test("expect and expect_error are there for scripts")
    func assertions() {
        let shell = ShellTranscript()
        #expect(shell.type("expect({a = {1, 2}}, {a = {1, 2}})").ok)
        // A statement, not `return expect(…)`: a tail call would leave no caller line to report.
        let failed = shell.type("expect(1 + 1, 3, 'sum'); checked = true")
        #expect(failed.errors.hasPrefix("stdin:1: sum: expected 3, got 2"))
        #expect(shell.print("expect_error(function() flux.dispatch('no.such') end, 'unknown action')")
            .contains("unknown action 'no.such'"))
        #expect(shell.type("expect_error(function() end)").errors.contains("expected an error, but none was raised"))
    }
}

import Foundation
