import Foundation
import Testing

/// A Lua store of a large state (saved in pieces) kept in a session, as a user runs it: every undo step
/// comes back after a restart and undoes exactly, decoded when `:undo` reaches it.
@Suite("fluxsh sessions with a large Lua state")
struct SessionLargeStateSpec {
    let state = temporaryPath("sessions-large")
    var environment: [String: String] { ["XDG_STATE_HOME": state] }

    /// 2,000 items of about 80 bytes: some 200 kB saved, past the size stored in pieces.
    let define = #"""
    local items = {} for i = 1, 2000 do items[i] = {id = i, text = string.rep("x", 60), done = false} end flux.store{name = "big", state = {count = 0, items = items}, on = {["big.touch"] = function(s, a) s.count = s.count + 1; s.items[a.i].done = not s.items[a.i].done; return s end}}
    """#

    func fluxsh(_ input: String) throws -> FluxshProcess.Result {
        try FluxshProcess.run(["--no-color", "--session", "big"], input: input, environment: environment)
    }

    @Test("every undo step of a large Lua state comes back after a restart, and :undo and :redo go through them exactly")
    func stepsComeBack() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let lines = [7, 700, 1400, 1999, 700].map { ":dispatch big.touch {i = \($0)}\n" }.joined()
        let first = try fluxsh(define + "\n" + lines)
        #expect(first.errors.isEmpty, "\(first.errors)")
        let check = "print(flux.state('big').count, flux.state('big').items[700].done, flux.state('big').items[1999].done)\n"
        let again = try fluxsh(define + "\n" + check + ":undo\n" + check + ":undo\n:undo\n" + check + ":undo\n:undo\n" + check
            + ":undo\n:redo\n:redo\n" + check)
        #expect(again.errors.isEmpty, "\(again.errors)")
        #expect(again.output == """
            5\tfalse\ttrue
            undid big.touch
            4\ttrue\ttrue
            undid big.touch
            undid big.touch
            2\ttrue\tfalse
            undid big.touch
            undid big.touch
            0\tfalse\tfalse
            nothing to undo
            redid big.touch
            redid big.touch
            2\ttrue\tfalse

            """, "\(again.output)")
    }
}
