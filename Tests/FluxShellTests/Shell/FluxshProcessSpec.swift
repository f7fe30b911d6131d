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
        #expect(lines.count == 4)
        #expect(lines.first == "ok    ./fine.lua")
        #expect(lines.contains("ok    ./fresh.lua"))
        #expect(lines.contains { $0.hasPrefix("FAIL  ./wrong.lua") && $0.hasSuffix("./wrong.lua:3: arithmetic: expected 3, got 2") })
        #expect(lines.last == "2 passed, 1 failed")
        let passing = try FluxshProcess.run(["test", "fine.lua", "fresh.lua"], in: folder)
        #expect(passing.status == 0)
        #expect(passing.output.hasSuffix("2 passed, 0 failed\n"))
        #expect(try FluxshProcess.run(["test", "missing"], in: folder).status == 1)
    }

    @Test("options: --version, --help, --no-features, --plugins")
    func options() throws {
        let version = try FluxshProcess.run(["--version"])
        #expect(version.status == 0 && version.output == "0.1.0\n")
        let help = try FluxshProcess.run(["--help"])
        #expect(help.output.contains("--plugins <dir>") && help.output.contains("--no-features"))
        #expect(try FluxshProcess.run(["--no-features"], input: ":stores\n").output == "no stores\n")
        let folder = try scriptFolder(["tally.lua": "flux.store{name = 'tally', state = {n = 0}, on = {}}"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugins = try FluxshProcess.run(["--no-features", "--plugins", folder], input: ":stores\n")
        #expect(plugins.output == "tally\n")
        #expect(try FluxshProcess.run(["--frobnicate"]).status != 0)
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
