import Foundation
import Testing

@Suite("fluxsh as a command")
struct FluxshProcessSpec {
    @Test("piped input runs as if typed, with no prompt")
    func pipe() throws {
        let result = try FluxshProcess.run(["--no-color"], input: ":dispatch ticTacToe.placeToken {index=4}\n:render ticTacToe\n")
        #expect(result.status == 0)
        #expect(result.output.contains(". X ."))
        #expect(result.output.contains("O's turn"))
        #expect(!result.output.contains("flux>"))
        #expect(result.errors.isEmpty)
    }

    @Test("a piped line that fails is reported, the rest still runs, and the exit status is 1")
    func pipeFailure() throws {
        let result = try FluxshProcess.run([], input: "error('first')\nprint('second')\n")
        #expect(result.status == 1)
        #expect(result.errors.hasPrefix("stdin:1: first"))
        #expect(result.output == "second\n")
    }

    @Test("SIGINT stops the running line; the shell reads on with its stores intact")
    func interrupt() throws {
        let result = try FluxshProcess.run([], input: """
            flux.dispatch('ticTacToe.placeToken', {index = 4})
            while true do end
            print(flux.state('ticTacToe').gameInstruction)
            """, interruptAfter: 1)
        #expect(result.errors.contains("interrupted"))
        #expect(result.output == "O's turn\n")
        #expect(result.status == 1)
    }

    @Test("a finalizer that loops at close is stopped: fluxsh exits with a message saying so, and ran what it was given")
    func loopingFinalizerAtClose() throws {
        let start = Date()
        let result = try FluxshProcess.run([], input: """
            kept = setmetatable({}, {__gc = function() while true do end end})
            print('before close')
            """, killAfter: 30)
        #expect(Date().timeIntervalSince(start) < 20, "fluxsh should exit within seconds, not be killed")
        #expect(result.output == "before close\n")
        #expect(result.errors.contains("error in finalizer: stdin:1: instruction budget exceeded"), "\(result.errors)")
        #expect(result.status == 0)
    }

    @Test("fluxsh run runs scripts in one shell and stops at the first error, with its traceback")
    func run() throws {
        let folder = try scriptFolder([
            "a.lua": "flux.dispatch('ticTacToe.placeToken', {index = 0})",
            "b.lua": "print(flux.state('ticTacToe').gameInstruction)",
            "bad.lua": "local x = 1\nerror('broken on purpose')",
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = try FluxshProcess.run(["run", "a.lua", "b.lua"], in: folder)
        #expect(good.status == 0)
        #expect(good.output == "O's turn\n")
        let bad = try FluxshProcess.run(["run", "a.lua", "bad.lua", "b.lua"], in: folder)
        #expect(bad.status == 1)
        #expect(bad.errors.hasPrefix("bad.lua:2: broken on purpose\nstack traceback:"))
        #expect(bad.output.isEmpty, "b.lua did not run")
        #expect(try FluxshProcess.run(["run"]).status != 0)
    }

    @Test("fluxsh test prints ok or FAIL per script, the counts, and exits 1 on a failure")
    func test() throws {
        let folder = try scriptFolder([
            "fine.lua": "flux.dispatch('ticTacToe.placeToken', {index = 0})\nexpect(flux.state('ticTacToe').playerToMove, 'O')",
            "fresh.lua": "expect(flux.state('ticTacToe').playerToMove, 'X', 'each script starts with fresh stores')",
            "wrong.lua": "\n\nexpect(1 + 1, 3, 'arithmetic')",
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try FluxshProcess.run(["test", "."], in: folder)
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ok    ./fine.lua ") == true)
        #expect(lines.first?.hasSuffix(" ms") == true, "each line shows the script's time")
        #expect(lines.contains { $0.hasPrefix("ok    ./fresh.lua ") })
        let failure = try #require(lines.firstIndex { $0.hasPrefix("FAIL  ./wrong.lua") })
        #expect(lines[failure].hasSuffix(" ms  ./wrong.lua:3: arithmetic: expected 3, got 2"))
        #expect(lines[failure + 1] == "      stack traceback:", "the assertion's traceback follows")
        #expect(lines[(failure + 1)...].contains("        ./wrong.lua:3: in main chunk"))
        #expect(lines.last == "2 passed, 1 failed")
        let passing = try FluxshProcess.run(["test", "fine.lua", "fresh.lua"], in: folder)
        #expect(passing.status == 0)
        #expect(passing.output.hasSuffix("2 passed, 0 failed\n"))
        let missing = try FluxshProcess.run(["test", "missing"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.output == "0 passed, 1 failed\n")
    }

    @Test("fluxsh test: os.exit, a crash and a hang past the budget fail their script alone; the run goes on")
    func testIsolation() throws {
        let folder = try scriptFolder([
            "exits.lua": "os.exit(0)",
            "fails.lua": "os.exit(3)",
            // The process kills itself, as a crash ends it.
            "crashes.lua": "local f = io.open('/proc/self/stat'); local pid = f:read('n'); f:close(); os.execute('kill -KILL ' .. pid)",
            "hangs.lua": "os.execute('sleep 10')",
            "passes.lua": "print('passes ran')",
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try FluxshProcess.run(["test", "--timeout", "3", "."], in: folder)
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        func line(_ script: String) -> String { lines.first { $0.contains("./" + script + " ") } ?? "" }
        #expect(line("exits.lua").hasPrefix("FAIL") && line("exits.lua").contains("ended before its last line, with exit status 0"))
        #expect(line("fails.lua").hasPrefix("FAIL") && line("fails.lua").contains("exit status 3"))
        #expect(line("crashes.lua").hasPrefix("FAIL") && line("crashes.lua").contains("crashed with signal 9"))
        #expect(line("hangs.lua").hasPrefix("FAIL") && line("hangs.lua").contains("timed out after 3 s"))
        #expect(line("passes.lua").hasPrefix("ok"))
        #expect(lines.contains("passes ran"))
        #expect(lines.last == "1 passed, 4 failed")
    }

    @Test("fluxsh test searches folders recursively (not into a plugin's folder); --filter picks scripts")
    func testSelection() throws {
        let folder = try scriptFolder(["top.lua": "expect(1, 1)"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/deep/er", withIntermediateDirectories: true)
        try "expect(2, 2)".write(toFile: folder + "/deep/er/nested.lua", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/plugin", withIntermediateDirectories: true)
        try "error('a plugin is not a test')".write(toFile: folder + "/plugin/init.lua", atomically: true, encoding: .utf8)
        let all = try FluxshProcess.run(["test", "."], in: folder)
        #expect(all.status == 0)
        #expect(all.output.contains("ok    ./deep/er/nested.lua "))
        #expect(all.output.hasSuffix("2 passed, 0 failed\n"))
        let filtered = try FluxshProcess.run(["test", "--filter", "nest", "."], in: folder)
        #expect(filtered.output.hasPrefix("ok    ./deep/er/nested.lua "))
        #expect(filtered.output.hasSuffix("1 passed, 0 failed\n"))
        let none = try FluxshProcess.run(["test", "--filter", "nothing", "."], in: folder)
        #expect(none.status == 1)
        #expect(none.output == "0 passed, 0 failed\n")
    }

    @Test("fluxsh run exits non-zero when a subscriber's error was reported, though the script went on")
    func runReportsSubscriberErrors() throws {
        let folder = try scriptFolder([
            "noisy.lua": "flux.subscribe('ticTacToe', function() error('subscriber broke') end)\nflux.dispatch('ticTacToe.placeToken', {index = 0})\nprint('went on')",
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try FluxshProcess.run(["run", "noisy.lua"], in: folder)
        #expect(result.output == "went on\n")
        #expect(result.errors.contains("subscriber broke"))
        #expect(result.status == 1)
    }

    @Test("fluxsh SCRIPT args, - (standard input), -e, -l and -i behave as in lua; run and test stay subcommands after options")
    func luaCommandLine() throws {
        let folder = try scriptFolder([
            "args.lua": "print(arg[0], arg[1], arg[2], #arg, ...)",
            "fails.lua": "error('script broke')",
            "mod.lua": "return {answer = 42}",
            "test.lua": "expect(1, 1)",
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = try FluxshProcess.run(["args.lua", "one", "two"], in: folder)
        #expect(script.status == 0)
        #expect(script.output == "args.lua\tone\ttwo\t2\tone\ttwo\n")
        let piped = try FluxshProcess.run(["-", "one"], input: "#!/usr/bin/env fluxsh\nprint(arg[0], arg[1], ...)\n")
        #expect(piped.status == 0 && piped.output == "-\tone\tone\n")
        let pipedFailure = try FluxshProcess.run(["-"], input: "\nerror('piped script broke')\n")
        #expect(pipedFailure.status == 1)
        #expect(pipedFailure.errors.hasPrefix("stdin:2: piped script broke\nstack traceback:"))
        let failing = try FluxshProcess.run(["fails.lua"], in: folder)
        #expect(failing.status == 1)
        #expect(failing.errors.hasPrefix("fails.lua:1: script broke\nstack traceback:"))
        let statements = try FluxshProcess.run(["-l", "mod", "-e", "x = mod.answer", "-e", "print(x + 1)"], in: folder,
                                               environment: ["LUA_PATH": "./?.lua"])
        #expect(statements.output == "43\n")
        #expect(statements.status == 0)
        #expect(try FluxshProcess.run(["-e", "error('bad')"]).status == 1)
        let interactive = try FluxshProcess.run(["-e", "x = 7", "-i"], input: "print(x * 6)\n")
        #expect(interactive.output == "42\n")
        let subcommand = try FluxshProcess.run(["--no-color", "test", "test.lua"], in: folder)
        #expect(subcommand.output.hasSuffix("1 passed, 0 failed\n"))
    }

    @Test("~ in file arguments is the home folder: --plugins, :load, :record, :replay")
    func tildeExpansion() throws {
        let home = try scriptFolder(["tally.lua": "flux.store{name = 'tally', state = {n = 0}, on = {['tally.add'] = function(s) s.n = s.n + 1 return s end}}"])
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/plugins", withIntermediateDirectories: true)
        try "flux.store{name = 'boxed', state = {}, on = {}}".write(toFile: home + "/plugins/boxed.lua", atomically: true, encoding: .utf8)
        let result = try FluxshProcess.run(["--no-features", "--plugins", "~/plugins"], input: """
            :load ~/tally.lua
            :record ~/tally.jsonl
            flux.dispatch('tally.add')
            :record
            :replay ~/tally.jsonl
            flux.state('tally').n
            :stores
            """, environment: ["HOME": home])
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.output.contains("recorded 1 entries to \(home)/tally.jsonl"))
        #expect(result.output.contains("replayed 1 entry from \(home)/tally.jsonl"))
        #expect(result.output.contains("\n2\nboxed\ntally\n"))
        #expect(FileManager.default.fileExists(atPath: home + "/tally.jsonl"))
    }

    @Test("options: --version, --help, --no-features, --plugins")
    func options() throws {
        let version = try FluxshProcess.run(["--version"])
        #expect(version.status == 0 && version.output == "0.1.0\n")
        let help = try FluxshProcess.run(["--help"])
        #expect(help.output.contains("--plugins <dir|file>") && help.output.contains("--no-features"))
        #expect(try FluxshProcess.run(["--no-features"], input: ":stores\n").output == "no stores\n")
        let folder = try scriptFolder(["tally.lua": "flux.store{name = 'tally', state = {n = 0}, on = {}}"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugins = try FluxshProcess.run(["--no-features", "--plugins", folder], input: ":stores\n")
        #expect(plugins.output == "tally\n")
        #expect(try FluxshProcess.run(["--frobnicate"]).status != 0)
        let missing = try FluxshProcess.run(["--plugins", folder + "/none"])
        #expect(missing.status == 64)
        #expect(missing.errors.contains("--plugins \(folder)/none: no such folder"))
    }

    @Test("fluxsh help [SUBCOMMAND], which --help's last line offers, shows the help; usage names a subcommand as typed")
    func helpSubcommand() throws {
        let help = try FluxshProcess.run(["help"])
        #expect(help.status == 0)
        let dashDashHelp = try FluxshProcess.run(["--help"])
        #expect(help.output == dashDashHelp.output)
        let run = try FluxshProcess.run(["help", "run"])
        #expect(run.status == 0)
        let runDashDashHelp = try FluxshProcess.run(["run", "--help"])
        #expect(run.output.contains("USAGE: fluxsh run ") && run.output == runDashDashHelp.output)
        let test = try FluxshProcess.run(["--no-color", "help", "test"])
        #expect(test.output.contains("USAGE: fluxsh test "))
        let unknown = try FluxshProcess.run(["help", "bogus"])
        #expect(unknown.status == 64)
        #expect(unknown.errors.contains("help: no subcommand 'bogus' (subcommands: run, test, open)"))
        let missing = try FluxshProcess.run(["run"])
        #expect(missing.status == 64)
        #expect(missing.errors.contains("USAGE: fluxsh run "))
    }

    private func scriptFolder(_ files: [String: String]) throws -> String {
        let folder = temporaryPath("scripts")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        return folder
    }
}
