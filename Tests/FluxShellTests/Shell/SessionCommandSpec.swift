import Foundation
import Testing

/// `--session`, `--fresh`, `--no-session`, `:session`, `:session compact`, `:history N|all` and `:export`, as a user runs them.
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

    @Test("a restored Lua state is never changed in place: a handler appending to a nested table after a restart undoes exactly")
    func restoredStateStaysFrozen() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let define = #"flux.store{name = "bag", state = {tags = {}}, on = {["bag.add"] = function(s, a) s.tags[#s.tags + 1] = a.tag; return s end}}"#
        _ = try fluxsh(["--session", "bag"], define + "\n:dispatch bag.add {tag = 'a'}\n")
        let again = try fluxsh(["--session", "bag"], define + "\n:dispatch bag.add {tag = 'b'}\n:undo\n:state bag\n:undo\n:state bag\n:redo\n:redo\n:state bag\n")
        #expect(again.output == "undid bag.add\n{tags = {\"a\"}}\nundid bag.add\n{tags = {}}\nredid bag.add\nredid bag.add\n{tags = {\"a\", \"b\"}}\n")
        #expect(again.errors.isEmpty)
    }

    @Test("a Lua store defined again with other fields keeps its saved fields, says so, and the other stores and steps stay")
    func luaStoreReshaped() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let before = #"flux.store{name = "c", state = {n = 0}, on = {["c.add"] = function(s, a) s.n = s.n + a.by end}}"#
        let after = #"flux.store{name = "c", state = {total = 0}, on = {["c.add"] = function(s, a) s.total = s.total + a.by end}}"#
        _ = try fluxsh(["--session", "shape"], before + "\n:dispatch c.add {by = 5}\n:dispatch ticTacToe.placeToken {index = 4}\n")
        let again = try fluxsh(["--session", "shape"], after + "\n:state c\n:dispatch c.add {by = 2}\n:state c\n:undo\n:undo\nflux.state('ticTacToe').board[5]\n")
        #expect(again.output == "{n = 5, total = 0}\n{n = 5, total = 2}\nundid c.add\nundid ticTacToe.placeToken\nnil\n")
        #expect(again.errors.contains("store 'c' changed shape: added total (initial value); the other saved fields kept"), "\(again.errors)")
        // The state as saved stays aside until dropped.
        let stale = try fluxsh(["--session", "shape"], after + "\n:session stale\n:session drop-stale c\n:session stale\n")
        #expect(stale.output.contains("c  ") && stale.output.contains("lua-pairs-1 {n: number}"), "\(stale.output)")
        #expect(stale.output.contains("dropped ") && stale.output.hasSuffix("no state is kept aside\n"), "\(stale.output)")
        let same = try fluxsh(["--session", "shape"], after + "\n:state c\n")
        #expect(same.output == "{n = 5, total = 0}\n" && same.errors.isEmpty, "\(same.errors)")
    }

    @Test("an undo history waiting for a store not defined again says so at :undo and :history, and comes back when it is")
    func historyWaitsForStore() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let define = #"flux.store{name = "c", state = {n = 0}, on = {["c.add"] = function(s, a) s.n = s.n + a.by end}}"#
        _ = try fluxsh(["--session", "wait"], define + "\n:dispatch c.add {by = 5}\n")
        let again = try fluxsh(["--session", "wait"], ":undo\n:history\n" + define + "\n:undo\n:state c\n")
        let note = " (the saved undo history comes back once store 'c' is defined again)\n"
        #expect(again.output == "nothing to undo" + note + "no history yet" + note + "undid c.add\n{n = 0}\n")
        #expect(again.errors.isEmpty, "\(again.errors)")
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
            :export \(export).past 9-12
            """)
        defer { try? FileManager.default.removeItem(atPath: export + ".past") }
        let lines = result.output.split(separator: "\n").dropFirst().map(String.init) // "undid …"
        #expect(lines[0] == "session  j")
        #expect(lines[1] == "file     \(state)/fluxsh/sessions/j.sqlite")
        #expect(lines[2].hasPrefix("journal  5 actions and steps in 5 rows, "))
        // Journal entries are @N, each as the command that does it again, with its time.
        #expect(lines[3].hasPrefix("@4  ") && lines[3].hasSuffix("  :dispatch ticTacToe.placeToken {index = 2}"), "\(lines[3])")
        #expect(lines[4].hasPrefix("@5  ") && lines[4].hasSuffix("  :undo"), "\(lines[4])")
        #expect(lines[5] == "exported 2 entries (2-3) to \(export)")
        #expect(lines.count == 11)
        let exported = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n")
        #expect(exported.count == 2 && exported[0].contains(#""index":0"#) && exported[1].contains(#""index":1"#))
        #expect(result.errors.contains("'x' is not a count"))
        // A range past the end is refused, not written as an empty log.
        #expect(result.errors.contains("no entries 9-12: the journal holds 1-5; nothing was exported"))
        #expect(!FileManager.default.fileExists(atPath: export + ".past"))
        let replayed = try FluxshProcess.run(["--no-color"], input: ":replay \(export)\nflux.state('ticTacToe').board[2]\n")
        #expect(replayed.output == "replayed 2 entries from \(export)\nO\n")
    }

    @Test(":history N cuts each entry to the terminal's width; :export writes it whole")
    func longEntries() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let export = temporaryPath("long.jsonl")
        defer { try? FileManager.default.removeItem(atPath: export) }
        let result = try FluxshProcess.run(["--no-color", "--session", "long"], input: """
            flux.store{name = "notes", state = {}, on = {["notes.set"] = function(state, action) state.text = action.text end}}
            flux.dispatch("notes.set", {text = string.rep("y", 100000)})
            :history 1
            :export \(export)
            """, environment: environment.merging(["COLUMNS": "40"]) { $1 })
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("@1  ") == true && lines.first?.contains(":dispatch notes.set {") == true
                && lines.first?.count == 40, "\(lines.first?.prefix(200) ?? "")")
        #expect(lines.last == "exported 1 entry (1-1) to \(export)")
        #expect(try String(contentsOfFile: export, encoding: .utf8).count > 100_000)
    }

    @Test(":session compact KEEP drops older entries; the rest keep their numbers, after a restart too")
    func compact() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let export = temporaryPath("compacted.jsonl")
        defer { try? FileManager.default.removeItem(atPath: export) }
        let result = try fluxsh(["--session", "c"], """
            for i = 1, 10 do flux.dispatch("ticTacToe.placeToken", {index = 4}) flux.dispatch("ticTacToe.reset") end
            :dispatch ticTacToe.placeToken {index = 0}
            :session compact 3
            :history all
            :export \(export) 18-21
            :export \(export) 19-20
            :session
            :session compact x
            :session compact
            """)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("compacted: dropped 18 entries, journal 3 entries (19-21), file "), "\(lines[0])")
        #expect(lines[1].hasPrefix("@19  ") && lines[1].hasSuffix(":dispatch ticTacToe.placeToken {index = 4}"))
        #expect(lines[2].hasPrefix("@20  ") && lines[2].hasSuffix(":dispatch ticTacToe.reset"))
        #expect(lines[3].hasPrefix("@21  ") && lines[3].hasSuffix(":dispatch ticTacToe.placeToken {index = 0}"))
        #expect(result.errors.contains("entries 1-18 were compacted away: the journal starts at entry 19; nothing was exported"))
        #expect(lines[4] == "exported 2 entries (19-20) to \(export)")
        #expect(lines[7].hasPrefix("journal  21 actions and steps in 3 rows, ") && lines[7].hasSuffix(" (from entry 19; older ones compacted)"))
        #expect(result.errors.contains("'x' is not a count"))
        #expect(lines[8].hasPrefix("compacted: dropped 0 entries, journal 3 entries (19-21), file "))
        let again = try fluxsh(["--session", "c"], ":dispatch ticTacToe.placeToken {index = 8}\n:history 9\nflux.state('ticTacToe').board[1]\n:session compact 0\n:history all\n")
        let more = again.output.split(separator: "\n").map(String.init)
        #expect(more[0 ... 3].map { $0.prefix(5) } == ["@19  ", "@20  ", "@21  ", "@22  "])
        #expect(more[4] == "X")
        #expect(more[5].hasPrefix("compacted: dropped 4 entries, journal empty (the next entry is 23), file "))
        #expect(more[6] == "the journal is empty")
        #expect(again.errors.isEmpty)
    }

    @Test("a group that fails leaves nothing in the journal: an export of it replays cleanly")
    func failedGroupNotJournalled() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let export = temporaryPath("group.jsonl")
        defer { try? FileManager.default.removeItem(atPath: export) }
        let result = try fluxsh(["--session", "g"], """
            :dispatch ticTacToe.placeToken {index = 4}
            flux.group("doomed", function() flux.dispatch("ticTacToe.placeToken", {index = 1}) error("no") end)
            :session
            :export \(export)
            """)
        #expect(result.output.contains("journal  1 action"))
        let exported = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n")
        #expect(exported.count == 1 && exported[0].contains(#""index":4"#))
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
        #expect(result.output.contains("  #1 ticTacToe.placeToken {index = 4}  → ticTacToe\n  ── now"))
        #expect(result.output.contains("journal  1 action"))
        #expect(try fluxsh(["--session", "r"], "flux.state('ticTacToe').board[1]\n").output == "nil\n")
    }

    @Test("a sessions folder that cannot be made: the shell says so once and goes on without a session",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh")))
    func unwritableFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try "not a folder".write(toFile: state + "/fluxsh", atomically: true, encoding: .utf8)
        let result = try fluxsh(["--session", "s"], ":dispatch ticTacToe.placeToken {index = 4}\nprint(flux.state('ticTacToe').gameInstruction)\n")
        #expect(result.output == "O's turn\n")
        #expect(result.errors.components(separatedBy: "session 's': cannot create a directory in \(state)/fluxsh: Not a directory").count == 2,
                "said once, in words: \(result.errors)")
        #expect(result.errors.contains("nothing of this shell will be kept"))
    }

    @Test("a full disk (a file-size limit) under the session: the shell says once what failed, goes on, keeps every state, and says at the end what is lost",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh")))
    func fullDisk() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        var input = ""
        for _ in 0 ..< 300 { input += ":dispatch ticTacToe.placeToken {index = 4}\n:undo\n" }
        input += ":dispatch ticTacToe.placeToken {index = 4}\nprint(flux.state('ticTacToe').gameInstruction)\n:undo\nprint(flux.state('ticTacToe').board[5])\nprint('still here')\n"
        let result = try FluxshProcess.run(["--no-color", "--session", "full"], input: input, environment: environment, fileSizeLimit: 256)
        #expect(result.status == 0)
        #expect(result.output.hasSuffix("undid ticTacToe.placeToken\nO's turn\nundid ticTacToe.placeToken\nnil\nstill here\n"), "\(result.output.suffix(200))")
        #expect(result.errors.components(separatedBy: "session 'full': not saved").count == 2, "said once: \(result.errors)")
        #expect(result.errors.contains("is tried again after each line"))
        // At the end, what is still not saved is lost: said then, however often the saves failed before.
        #expect(result.errors.hasSuffix("could not be saved, and is lost\n"), "\(result.errors)")
        #expect(result.errors.components(separatedBy: "session 'full':").count == 3, "\(result.errors)")
    }
}
