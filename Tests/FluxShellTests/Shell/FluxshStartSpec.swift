import Foundation
import Testing

/// What a newcomer meets first: the refusal of a second shell on a session, the banner's restore line,
/// a plugin given by its file, the help's sections and the man page.
@Suite("fluxsh's start")
struct FluxshStartSpec {
    @Test("a second fluxsh on an open session is refused with exit status 2, unless --no-session")
    func secondShellRefused() throws {
        let state = temporaryPath("second-shell")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try Terminal("--no-color --session held", state: state)
        defer { first.stop() }
        try first.waitFor("flux> ")
        let second = try FluxshProcess.run(["--session", "held"], input: "print('ran')\n", environment: ["XDG_STATE_HOME": state])
        #expect(second.status == 2)
        #expect(second.output.isEmpty, "nothing ran")
        #expect(second.errors == "fluxsh: session 'held' is open in another fluxsh (give this one another --session NAME, or --no-session to keep nothing)\n")
        let other = try FluxshProcess.run(["--no-session"], input: "print('ran')\n", environment: ["XDG_STATE_HOME": state])
        #expect(other.status == 0 && other.output == "ran\n")
    }

    @Test("the banner says what the session gave back, and the tic-tac-toe hint does not fail on a restored board")
    func bannerTellsWhatWasRestored() throws {
        let state = temporaryPath("banner-restore")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let fresh = try Terminal("--no-color --session game", state: state + "/keep")
        try fresh.waitFor("session 'game' is new: it is kept for the next start (--no-session keeps nothing)")
        fresh.type(":dispatch ticTacToe.placeToken {index = 4}\r")
        try fresh.waitFor("flux> ")
        fresh.type(":quit\r")
        _ = try fresh.exitStatus()
        let again = try Terminal("--no-color --session game", state: state + "/keep")
        defer { again.stop() }
        try again.waitFor("session 'game' restored: 1 store changed, 1 journal entry; :session for more, --fresh to start empty")
        #expect(again.printed.contains(":dispatch ticTacToe.reset"))
        #expect(!again.printed.contains("placeToken {index = 4}"))
    }

    @Test("--plugins takes a plugin's file: a folder plugin's init.lua, or a .lua plugin; a missing path is exit 64")
    func pluginByFile() throws {
        let folder = temporaryPath("plugin-file")
        try FileManager.default.createDirectory(atPath: folder + "/todo", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "local text = require 'text' flux.store{name = text, state = {}}".write(toFile: folder + "/todo/init.lua", atomically: true, encoding: .utf8)
        try "return 'todo'".write(toFile: folder + "/todo/text.lua", atomically: true, encoding: .utf8)
        try "flux.store{name = 'tally', state = {}}".write(toFile: folder + "/tally.lua", atomically: true, encoding: .utf8)
        let result = try FluxshProcess.run(["--no-features", "--plugins", folder + "/todo/init.lua", "--plugins", folder + "/tally.lua"],
                                           input: ":stores\n:plugins\n")
        #expect(result.errors == "")
        #expect(result.output.hasPrefix("todo\ntally\ntodo  "), "\(result.output)")
        let missing = try FluxshProcess.run(["--plugins", folder + "/none.lua"])
        #expect(missing.status == 64 && missing.errors.contains("no such folder or file"))
    }

    @Test("--help ends with EXAMPLES, ENVIRONMENT and FILES; its usage names no required subcommand; help test shows one default")
    func help() throws {
        let help = try FluxshProcess.run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: fluxsh [<options>]") && !help.output.contains("USAGE: fluxsh <subcommand>"))
        for section in ["\nEXAMPLES:\n", "\nENVIRONMENT:\n", "\nFILES:\n"] { #expect(help.output.contains(section), "\(section)") }
        for name in ["XDG_STATE_HOME", "NO_COLOR", "LUA_INIT", "COLUMNS"] { #expect(help.output.contains("  " + name), "\(name)") }
        let added = help.output.components(separatedBy: "\nEXAMPLES:\n").last ?? ""
        #expect(added.split(separator: "\n").allSatisfy { $0.count <= 80 }, "the added sections fit 80 columns")
        let test = try FluxshProcess.run(["help", "test"])
        #expect(test.output.contains("(default: 60.0)") && !test.output.contains("(default 60)"), "one default for --timeout: \(test.output)")
    }

    @Test("fluxsh --man prints the man page fluxsh(1), which man reads")
    func manual() throws {
        let page = try FluxshProcess.run(["--man"])
        #expect(page.status == 0)
        #expect(page.output.hasPrefix(".TH FLUXSH 1 "))
        for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH EXAMPLES", ".SH ENVIRONMENT", ".SH FILES"] {
            #expect(page.output.contains(section + "\n"), "\(section)")
        }
        #expect(page.output.contains(".B \\-\\-plugins <dir|file>"))
    }
}
