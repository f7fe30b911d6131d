import Foundation
import Testing

/// Undo after a restart: the release `fluxsh`, killed with SIGKILL with entries queued, is started again
/// in its session; undoing a restored step takes its entry back (never sent), as it would have before the
/// kill; undoing the step of an entry already sent queues nothing; a redo queues nothing.
@Suite("An outbox's entries follow the undo of a restored history")
struct OutboxUndoRestartSpec {
    /// Notes, and an outbox whose receiver takes note 1 and is offline for the others (a retry waits a
    /// minute); every send is written to `sent.log`, so a later run can tell what ever left.
    static func plugin(folder: String) -> String {
        #"""
        flux.store{name = "notes", state = {items = {}}, on = {
          ["notes.add"] = function(s, a) s.items[#s.items + 1] = a.n; return s end,
        }}
        flux.outbox{name = "sync", actions = {"notes.add"}, retry = {first_ms = 60000, max_ms = 60000},
          send = function(entry, reply)
            local log = io.open("\#(folder)/sent.log", "a")
            log:write(entry.id, " ", entry.payload.n, "\n")
            log:close()
            if entry.payload.n == 1 then reply("ok") else reply("retry", "offline") end
          end}
        """#
    }

    /// The shell kills itself with SIGKILL once the lines before it ended (each line ends with a save).
    static let killItself = #"os.execute("kill -9 $PPID")"#

    /// The notes, and the ids of the entries queued (one line: each piped line is a chunk of its own).
    static let state = #"local ids = {} for _, e in ipairs(flux.outbox_state("sync").entries) do ids[#ids + 1] = e.id end "#
        + #"print("items " .. table.concat(flux.state("notes").items, ",") .. "; queued " .. table.concat(ids, ","))"#

    @Test("kill -9 with notes 2 and 3 queued; after the restart, undo takes 3 then 2 back, undo of 1 (sent) and a redo queue nothing")
    func undoRestoredSteps() throws {
        let release = try FluxshProcess.releasePath()
        let folder = temporaryPath("outbox-undo")
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.plugin(folder: folder).write(toFile: folder + "/plugins/notes.lua", atomically: true, encoding: .utf8)
        let environment = ["XDG_STATE_HOME": folder + "/state"]
        func shell(_ lines: [String]) throws -> FluxshProcess.Result {
            try FluxshProcess.run(["--no-color", "--no-features", "--plugins", folder + "/plugins", "--session", "notes"],
                                  input: lines.joined(separator: "\n") + "\n", environment: environment, executable: release)
        }
        func sent() -> [String] {
            ((try? String(contentsOfFile: folder + "/sent.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        // 1 is sent and taken; 2 is tried and waits; 3 waits behind it. Then SIGKILL.
        let first = try shell([#"flux.dispatch("notes.add", {n = 1})"#, "flux.settle()",
                               #"flux.dispatch("notes.add", {n = 2})"#, #"flux.dispatch("notes.add", {n = 3})"#, "flux.settle()",
                               Self.state, Self.killItself, "print('not reached')"])
        #expect(first.status == SIGKILL, "\(first.output)\(first.errors)")
        #expect(first.output == "items 1,2,3; queued 2,3\n", "\(first.output)\(first.errors)")
        #expect(sent() == ["1 1", "2 2"])

        // An undo killed before its line ended is lost with its step: 3 comes back, queued.
        let lost = try shell(["flux.undo() " + Self.killItself])
        #expect(lost.status == SIGKILL)

        let second = try shell([Self.state, ":undo", Self.state, ":undo", Self.state, ":undo", ":redo", Self.state,
                                Self.killItself])
        #expect(second.status == SIGKILL, "\(second.output)\(second.errors)")
        #expect(second.output == """
            items 1,2,3; queued 2,3
            undid notes.add
            items 1,2; queued 2
            undid notes.add
            items 1; queued \n\
            undid notes.add
            redid notes.add
            items 1; queued \n
            """, "each undo takes its step's entry back; 1 was sent: undoing it queues nothing, nor does the redo: \(second.output)\(second.errors)")
        let sentBefore = sent()

        // Online now: nothing undone is ever sent.
        let third = try shell([Self.state, "flux.settle()", Self.state])
        #expect(third.status == 0, "\(third.errors)")
        #expect(third.output == "items 1; queued \nitems 1; queued \n", "\(third.output)\(third.errors)")
        // Entry 2, queued until its undo, was tried again at each start; 3 never left; nothing after the undo.
        #expect(sent() == sentBefore && !sent().contains("3 3") && sent().filter { $0 == "1 1" }.count == 1, "\(sent())")
    }
}
