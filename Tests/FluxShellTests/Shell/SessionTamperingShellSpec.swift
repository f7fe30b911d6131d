import Foundation
import GRDB
import Testing

/// fluxsh on sessions that were damaged, shared or grown between runs, as a user meets them: the shell
/// never dies by a signal, keeps what is sound, says what it left out; `:history`, `:goto`, `:export`
/// and floats stay exact.
@Suite("fluxsh sessions under damage")
struct SessionTamperingShellSpec {
    let state = temporaryPath("tampered-sessions")
    var environment: [String: String] { ["XDG_STATE_HOME": state, "COLUMNS": "200"] }
    var database: String { state + "/fluxsh/sessions/work.sqlite" }

    func fluxsh(_ input: String, arguments: [String] = [], fileSizeLimit: Int? = nil) throws -> FluxshProcess.Result {
        try FluxshProcess.run(["--no-color", "--session", "work"] + arguments, input: input, environment: environment,
                              fileSizeLimit: fileSizeLimit)
    }

    func tamper(_ sql: String) throws {
        try DatabaseQueue(path: database).write { db in try db.execute(sql: sql) }
    }

    @Test("a saved state stored as a BLOB: the shell starts, names the row, and the other stores and the board are there")
    func blobState() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        _ = try fluxsh(":dispatch ticTacToe.placeToken {index = 4}\n:dispatch connectFour.reset\n")
        try tamper("UPDATE state SET state = X'FFFE7B0022' WHERE store = 'ticTacToe'")
        let again = try fluxsh("flux.state('ticTacToe').board[5]\n:history all\n")
        #expect(again.status == 0)
        #expect(again.errors.contains("table 'state', row store = 'ticTacToe': column 'state' holds a BLOB of 5 bytes, not text"), "\(again.errors)")
        #expect(again.output.hasPrefix("nil\n"), "\(again.output)")
        #expect(again.output.contains("ticTacToe.placeToken"), "the journal is still listed: \(again.output)")
    }

    @Test("a journal row with count 0: :history all, :export and :goto name it instead of aborting")
    func zeroCount() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        _ = try fluxsh(":dispatch ticTacToe.placeToken {index = 4}\n:dispatch ticTacToe.placeToken {index = 0}\n:dispatch ticTacToe.placeToken {index = 8}\n")
        try tamper("UPDATE journal SET count = 0 WHERE seq = 2")
        let export = state + "/out.jsonl"
        let again = try fluxsh(":history all\n:export \(export)\n:goto 3\n:goto 1\n")
        #expect(again.status == 1, "the refused commands are errors, not a crash")
        // The listing is :journal's: `@1  06:30:12  :dispatch …`, the damaged row left out.
        #expect(again.output.range(of: #"@1  [0-9:]{8}  :dispatch ticTacToe\.placeToken \{index = 4\}"#, options: .regularExpression) != nil,
                "\(again.output)")
        #expect(again.output.contains("@3  ") && !again.output.contains("@2  "), "\(again.output)")
        #expect(again.errors.contains("table 'journal', row seq = 2: column 'count' holds 0"), "\(again.errors)")
        #expect(again.errors.contains("nothing was exported"), "\(again.errors)")
        #expect(!FileManager.default.fileExists(atPath: export))
        #expect(again.output.contains("at journal entry @1 of 3"), "\(again.output)")
    }

    @Test(":history lists the payloads of the steps a session restored")
    func restoredPayloads() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try fluxsh(":dispatch ticTacToe.placeToken {index = 4}\n:history\n")
        let again = try fluxsh(":history\n")
        #expect(first.output.contains("ticTacToe.placeToken {index = 4}"), "\(first.output)")
        #expect(again.output == first.output, "\(again.output)")
    }

    @Test(":history lists a restored step's float payload as a float (0.0 came back as 0)")
    func restoredFloatPayload() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let define = #"flux.store{name = "f", state = {x = 1}, on = {["f.set"] = function(s, a) s.x = a.x; return s end}}"#
        let plugin = state + "/f.lua"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try define.write(toFile: plugin, atomically: true, encoding: .utf8)
        // The store defined by a plugin, before the session's history is restored.
        let first = try fluxsh("flux.dispatch('f.set', {x = 0.0})\n:history\n", arguments: ["--plugins", plugin])
        let again = try fluxsh(":history\n", arguments: ["--plugins", plugin])
        #expect(first.output.contains("f.set {x = 0.0}"), "\(first.output)")
        #expect(again.output == first.output, "\(again.output)")
    }

    @Test("a float 2^53 is logged and replayed as a float")
    func wholeFloat() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let define = #"flux.store{name = "f", state = {x = 0}, on = {["f.set"] = function(s, a) s.x = a.x; return s end}}"#
        let first = try fluxsh(define + "\nflux.dispatch('f.set', {x = 2^53})\nflux.dispatch('f.set', {x = 1})\n:goto 1\nmath.type(flux.state('f').x)\n")
        #expect(first.output.hasSuffix("float\n"), "\(first.output)")
        let again = try fluxsh(define + "\nmath.type(flux.state('f').x)\n:undo\nmath.type(flux.state('f').x)\n")
        let lines = again.output.split(separator: "\n")
        #expect(lines.first == "float" && lines.last == "integer", "\(again.output)")
    }

    @Test(":goto across a :reload that changed a handler refuses, naming the reload; entries after it replay with the new handler")
    func gotoAcrossReload() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let plugin = state + "/tally.lua"
        let version = { (factor: Int) in
            #"flux.store{name = "tally", state = {n = 0}, on = {["tally.add"] = function(s, a) s.n = s.n + a.by * \#(factor) return s end}}"#
        }
        try version(1).write(toFile: plugin, atomically: true, encoding: .utf8)
        let output = try fluxsh("""
            :load \(plugin)
            :dispatch tally.add {by = 10}
            :dispatch tally.add {by = 20}
            :dispatch tally.add {by = 30}
            """ + "\n" + #"local f = io.open("\#(plugin)", "w") f:write([[\#(version(1000))]]) f:close()"# + """

            :reload tally
            :dispatch tally.add {by = 1}
            :goto 2
            flux.state('tally').n
            :goto 3
            flux.state('tally').n
            :goto 4
            flux.state('tally').n
            """ + "\n")
        #expect(output.errors.contains("cannot go to entry 2 exactly: store 'tally' was defined again with other handlers after entry 3"), "\(output.errors)")
        #expect(output.errors.contains("plugin tally"), "\(output.errors)")
        // Refused, nothing changed; the saved states after entry 3; entry 4 replayed by the handler that made it.
        let numbers = output.output.split(separator: "\n").filter { $0.allSatisfy(\.isNumber) }
        #expect(numbers == ["1060", "60", "1060"], "\(output.output)")
    }

    @Test(":export on a full disk leaves no torn file, and the next export works")
    func exportFullDisk() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let export = state + "/big.jsonl"
        let full = try fluxsh("for i = 1, 8000 do flux.dispatch('ticTacToe.reset') end\n:export \(export)\n",
                              fileSizeLimit: 256)
        #expect(full.errors.contains("nothing was exported"), "\(full.errors)")
        #expect(!FileManager.default.fileExists(atPath: export))
        let again = try fluxsh(":export \(export)\n")
        // What the file-size limit let the session keep of the loop is exported whole.
        #expect(again.output.hasPrefix("exported "), "\(again.output) \(again.errors)")
        let written = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n").count
        #expect(again.output.contains("exported \(written) entries"), "\(again.output)")
    }

    @Test("a sessions folder that cannot be made says which file is in the way, in words")
    func folderInTheWay() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: state + "/fluxsh"))
        let output = try fluxsh(":quit\n")
        #expect(output.errors.contains("cannot create a directory in \(state)/fluxsh: Not a directory"), "\(output.errors)")
        #expect(!output.errors.contains("NSCocoaErrorDomain"))
    }
}

/// Release-binary runs on a session database damaged at random (the in-process fuzz spec runs a
/// thousand more): fluxsh never dies by a signal.
@Suite("fluxsh on a session damaged at random")
struct SessionFuzzShellSpec {
    static let runs = 30

    /// Runs fluxsh, returning whether it ended by a signal, and its error output.
    static func run(_ input: String, state: String) throws -> (signalled: Bool, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FluxshProcess.path)
        process.arguments = ["--no-color", "--session", "work"]
        process.environment = FluxshProcess.environment(["XDG_STATE_HOME": state])
        let stdin = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationReason == .uncaughtSignal, String(decoding: errors, as: UTF8.self))
    }

    @Test("30 runs of the release fluxsh on a damaged session: never a signal")
    func randomDamage() throws {
        let state = temporaryPath("fuzzed-sessions")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let folder = state + "/fluxsh/sessions"
        let lines = """
            :dispatch ticTacToe.placeToken {index = 4}
            flux.store{name = "bag", state = {n = 0, f = 0.5}, on = {["bag.add"] = function(s, a) s.n = s.n + a.n; s.f = s.f * 2; return s end}}
            for i = 1, 20 do flux.dispatch("bag.add", {n = i}) end
            :undo
            :dispatch ticTacToe.placeToken {index = 0}
            :goto 5
            """ + "\n"
        let first = try Self.run(lines, state: state)
        #expect(!first.signalled)
        let original = try Data(contentsOf: URL(fileURLWithPath: folder + "/work.sqlite"))
        var seed: UInt64 = 7
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33)
        }
        let values = ["NULL", "0", "-3", "'abc'", "X'FFFE'", "9223372036854775807", "1.5", "''"]
        let columns = [("journal", ["count", "line", "stores", "lastTime"]), ("state", ["format", "state", "seq"]),
                       ("history", ["stack", "changes"]), ("snapshot", ["format", "state"])]
        for run in 1 ... Self.runs {
            try original.write(to: URL(fileURLWithPath: folder + "/work.sqlite"))
            if run % 3 == 0 {
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: folder + "/work.sqlite"))
                for _ in 0 ..< 4 {
                    try handle.seek(toOffset: UInt64(next() % original.count))
                    handle.write(Data([UInt8(next() % 256)]))
                }
                try handle.close()
            } else {
                let (table, names) = columns[next() % columns.count]
                let key = table == "snapshot" ? "seq" : "rowid"
                let sql = "UPDATE \(table) SET \(names[next() % names.count]) = \(values[next() % values.count]) "
                    + "WHERE \(key) IN (SELECT \(key) FROM \(table) ORDER BY random() LIMIT 2)"
                try? DatabaseQueue(path: folder + "/work.sqlite").write { db in try db.execute(sql: sql) }
            }
            let result = try Self.run(":history all\n:history\n:undo\n:goto 3\n:dispatch ticTacToe.placeToken {index = 8}\n:session\n", state: state)
            #expect(!result.signalled, "run \(run): fluxsh died by a signal: \(result.errors)")
        }
    }
}
