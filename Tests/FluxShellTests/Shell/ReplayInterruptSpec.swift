import Foundation
import Testing

/// Ctrl-C during `:replay`, as often as a user presses it: the release `fluxsh` on a terminal.
@Suite("Ctrl-C during :replay", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux's script"))
struct ReplayInterruptSpec {
    @Test("Ctrl-C pressed again and again while an interrupted :replay puts the stores back never ends the shell; nothing of it is applied")
    func repeatedInterrupts() throws {
        let log = temporaryPath("slow-again.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        try String(repeating: #"{"name":"slow.tick","payload":{}}"# + "\n", count: 3_000)
            .write(toFile: log, atomically: true, encoding: .utf8)
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        // Each tick spins a while, so the replay takes many seconds.
        terminal.type("flux.store{name = 'slow', state = {count = 0}, on = {['slow.tick'] = function(s) for i = 1, 300000 do end s.count = s.count + 1 return s end}}\r")
        try terminal.waitFor("flux> ")
        terminal.type("flux.dispatch('slow.tick')\r")
        try terminal.waitFor("flux> ")
        terminal.type(":replay \(log)\r")
        try terminal.waitFor("s left")
        // Three at once (the second lands while the first is still stopping the replay), then more while
        // the stores are put back.
        terminal.type("\u{3}\u{3}\u{3}")
        for _ in 0 ..< 5 {
            Thread.sleep(forTimeInterval: 0.01)
            terminal.type("\u{3}")
        }
        try terminal.waitFor("interrupted: nothing of \(log) was applied")
        try terminal.waitFor("flux> ")
        terminal.type("flux.state('slow').count\r")
        try terminal.waitFor("1\r\n")
        try terminal.waitFor("flux> ")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }
}
