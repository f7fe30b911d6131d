import Foundation
import Testing

/// `--session`, `--fresh`, `--no-session`, `:session`, `:history N|all` and `:export`, as a user runs them.
@Suite("fluxsh sessions")
struct SessionCommandSpec {
    let state = temporaryPath("sessions")
    var environment: [String: String] { ["XDG_STATE_HOME": state] }

    func fluxsh(_ arguments: [String], _ input: String) throws -> FluxshProcess.Result {
        try FluxshProcess.run(["--no-color"] + arguments, input: input, environment: environment)
    }

    @Test("quit and start again in the session: the board is still there, and :undo still works")
    func restart() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        _ = try fluxsh(["--session", "game"], ":dispatch ticTacToe.placeToken {index = 4}\n:dispatch ticTacToe.placeToken {index = 0}\n")
        let again = try fluxsh(["--session", "game"], "flux.state('ticTacToe').board[5]\n:undo\nflux.state('ticTacToe').board[1]\n:undo\n:undo\n")
        #expect(again.output == "X\nundid ticTacToe.placeToken\nnil\nundid ticTacToe.placeToken\nnothing to undo\n")
        #expect(again.errors.isEmpty)
        #expect(FileManager.default.fileExists(atPath: state + "/fluxsh/sessions/game.sqlite"))
    }

    @Test("a Lua store defined again after a restart gets its saved state, floats and large integers intact, and its undo steps")
    func luaStoreDefinedLater() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let define = #"flux.store{name = "notes", state = {n = 0, f = 2.0, big = 9007199254740993}, on = {["notes.add"] = function(s, a) s.n = s.n + 1; s.f = s.f + a.x; return s end}}"#
        _ = try fluxsh(["--session", "lua"], define + "\n:dispatch notes.add {x = 1.0}\n:dispatch notes.add {x = 0.5}\n")
        let again = try fluxsh(["--session", "lua"], define + "\n:state notes\nmath.type(flux.state('notes').f)\n:undo\n:state notes\n")
        #expect(again.output == "{big = 9007199254740993, f = 3.5, n = 2}\nfloat\nundid notes.add\n{big = 9007199254740993, f = 3.0, n = 1}\n")
        #expect(again.errors.isEmpty)
    }

    @Test("piped input and fluxsh run keep no session unless one is named")
    func noSessionByDefault() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        _ = try fluxsh([], ":dispatch ticTacToe.placeToken {index = 4}\n")
        #expect(try fluxsh([], "flux.state('ticTacToe').board[5]\n").output == "nil\n")
        #expect(!FileManager.default.fileExists(atPath: state + "/fluxsh/sessions"))
        #expect(try fluxsh([], ":session\n").errors.contains("no session is kept"))
    }

    @Test("--fresh starts empty and keeps the old database beside the new one; bad combinations are refused")
    func fresh() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        _ = try fluxsh(["--session", "s"], ":dispatch ticTacToe.placeToken {index = 4}\n")
        let fresh = try fluxsh(["--session", "s", "--fresh"], "flux.state('ticTacToe').board[5]\n")
        #expect(fresh.output == "nil\n")
        #expect(fresh.errors.contains("session 's': started afresh; the old one is \(state)/fluxsh/sessions/s."))
        let files = try FileManager.default.contentsOfDirectory(atPath: state + "/fluxsh/sessions")
        #expect(files.filter { $0.hasSuffix(".sqlite") }.count == 2)
        #expect(try fluxsh(["--session", "s", "--no-session"], "").status != 0)
        #expect(try fluxsh(["--fresh"], "").errors.contains("--fresh needs a session"))
        #expect(try FluxshProcess.run(["test", "--session", "s", "."], environment: environment).status != 0)
        #expect(try fluxsh(["--session", "../up"], "").errors.contains("invalid session name '../up'"))
    }

    @Test(":session, :history 2, :history all and :export FILE FROM-TO")
    func commands() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let export = temporaryPath("export.jsonl")
        defer { try? FileManager.default.removeItem(atPath: export) }
        let result = try fluxsh(["--session", "j"], """
            :dispatch ticTacToe.placeToken {index = 4}
            for i = 1, 3 do flux.dispatch("ticTacToe.placeToken", {index = i - 1}) end
            :undo
            :session
            :history 2
            :export \(export) 2-3
            :history all
            :history x
            """)
        let lines = result.output.split(separator: "\n").dropFirst().map(String.init) // "undid …"
        #expect(lines[0] == "session  j")
        #expect(lines[1] == "file     \(state)/fluxsh/sessions/j.sqlite")
        #expect(lines[2].hasPrefix("journal  5 actions and steps in 5 rows, "))
        #expect(lines[3].hasPrefix(#"4  {"name":"ticTacToe.placeToken","payload":{"index":2},"time":"#))
        #expect(lines[4].hasPrefix(#"5  {"step":"undo","time":"#))
        #expect(lines[5] == "exported 2 entries (2-3) to \(export)")
        #expect(lines.count == 11)
        let exported = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n")
        #expect(exported.count == 2 && exported[0].contains(#""index":0"#) && exported[1].contains(#""index":1"#))
        #expect(result.errors.contains("'x' is not a count"))
        let replayed = try FluxshProcess.run(["--no-color"], input: ":replay \(export)\nflux.state('ticTacToe').board[2]\n")
        #expect(replayed.output == "replayed 2 entries from \(export)\nO\n")
    }

    @Test("a replay that fails part-way leaves the stores, the undo history and the journal as they were")
    func atomicReplay() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let log = temporaryPath("bad.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        try """
            {"name":"ticTacToe.placeToken","payload":{"index":0}}
            {"name":"ticTacToe.placeToken","payload":{"index":0}}
            """.write(toFile: log, atomically: true, encoding: .utf8)
        let result = try fluxsh(["--session", "r"], ":dispatch ticTacToe.placeToken {index = 4}\n:replay \(log)\n:history\n:session\n")
        #expect(result.errors.contains("line 2: store 'ticTacToe' failed"))
        #expect(result.output.contains("  1. ticTacToe.placeToken {index = 4}  → ticTacToe\n  ── now"))
        #expect(result.output.contains("journal  1 action"))
        #expect(try fluxsh(["--session", "r"], "flux.state('ticTacToe').board[1]\n").output == "nil\n")
    }
}
