import Foundation
import Testing

private let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

/// A Ctrl-C right behind typed keys: the terminal discards the keys not read yet, so the prompt, woken by
/// them, finds nothing to read. It must still see the Ctrl-C and start over, never wait for another key.
@Suite("fluxsh on a terminal: Ctrl-C racing typed keys", .enabled(if: hasScript, "needs util-linux's script"))
struct PromptInterruptRaceSpec {
    @Test("a Ctrl-C typed right after a line's keys, at many continuation prompts in a row, always brings the first prompt back")
    func interruptBehindTypedKeys() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        var random = SystemRandomNumberGenerator()
        for round in 0..<200 {
            terminal.type("for i = 1, 3 do\r")
            try terminal.waitFor(">> ")
            terminal.type("print('never')")
            // The keys and the Ctrl-C arrive together or a little apart: the shell may be woken by the keys
            // and read after the terminal discarded them.
            usleep(UInt32.random(in: 0...2000, using: &random))
            terminal.type("\u{3}")
            do {
                try terminal.waitFor("flux> ", timeout: 10)
            } catch {
                Issue.record("round \(round): \(error)")
                return
            }
        }
        terminal.type("'still ' .. 'here'\r")
        try terminal.waitFor("still here\r\n")
        try terminal.waitFor("flux> ")
        #expect(!terminal.printed.contains("never\r\n"), "an interrupted chunk ran")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }
}
