import Foundation
import Testing

/// The history file of `fluxsh` on a terminal: saved before a line runs, never torn, and a history
/// that cannot be saved is said so once, at start.
@Suite("fluxsh's history file", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux's script"))
struct HistoryFileSpec {
    @Test("a line is in the history before it runs: one that ends the shell is there to find again")
    func savedBeforeRunning() throws {
        let state = temporaryPath("state")
        let terminal = try Terminal(state: state)
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("os.exit(3)\r")
        #expect(try terminal.exitStatus() == 3)
        #expect(try String(contentsOfFile: state + "/fluxsh/history", encoding: .utf8) == "os.exit(3)\n")
    }

    @Test("with XDG_STATE_HOME a file, the shell says at start, once, that history is not saved, and why")
    func stateHomeIsAFile() throws {
        let state = temporaryPath("state-file")
        try "".write(toFile: state, atomically: true, encoding: .utf8)
        let terminal = try Terminal(state: state)
        defer { terminal.stop() }
        try terminal.waitFor("history not saved: cannot create a directory in \(state): Not a directory")
        try terminal.waitFor("flux> ")
        terminal.type("print(1 + 1)\r")
        try terminal.waitFor("2\r\n")
        terminal.type("print(2 + 2)\r")
        try terminal.waitFor("4\r\n")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
        #expect(terminal.printed.components(separatedBy: "history not saved").count == 2)
    }

    @Test("an unwritable state folder is reported at start with its reason")
    func unwritableFolder() throws {
        let terminal = try Terminal(state: "/proc/self/fluxsh-state")
        defer { terminal.stop() }
        try terminal.waitFor("history not saved: cannot create a directory in /proc/self: ")
        try terminal.waitFor("flux> ")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("on a full disk (a file-size limit) the failure is reported once and the file holds only whole lines")
    func fullDisk() throws {
        let state = temporaryPath("state")
        try FileManager.default.createDirectory(atPath: state + "/fluxsh", withIntermediateDirectories: true)
        let file = state + "/fluxsh/history"
        // 1,000 bytes: the next line crosses the 1 KiB limit.
        try (String(repeating: "x", count: 999) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let terminal = try Terminal(state: state, prelude: "ulimit -f 1")
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("print('a line longer than what is left of the limit')\r")
        try terminal.waitFor("history not saved: cannot write \(file): File too large")
        try terminal.waitFor("the limit\r\n")
        terminal.type("print('and another one that does not fit either')\r")
        try terminal.waitFor("either\r\n")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == String(repeating: "x", count: 999) + "\n")
        #expect(terminal.printed.components(separatedBy: "history not saved").count == 2)
    }
}
