import Foundation
import Testing

/// An outbox delivering to a loopback HTTP receiver while `fluxsh run` is killed with SIGKILL at random
/// moments and started again in the same session: every committed note arrives, in order, once (the
/// receiver dedupes by the entry's id); the one the receiver refuses is compensated in the store, once.
@Suite("An outbox survives kill -9")
struct OutboxCrashSpec {
    static let total = 120
    static let refusedNote = 17

    /// A store of notes and an outbox that posts each with curl; 409 is a rejection, anything else but
    /// 200 a retry.
    static func plugin(url: String) -> String {
        #"""
        flux.store{name = "notes", state = {n = 0, items = {}, refused = {}}, on = {
          ["notes.add"] = function(s, a) s.n = a.n; s.items[#s.items + 1] = a.n; return s end,
          ["notes.refused"] = function(s, a)
            for i, n in ipairs(s.items) do if n == a.entry.payload.n then table.remove(s.items, i) break end end
            s.refused[#s.refused + 1] = a.entry.payload.n
            return s
          end,
        }}
        flux.outbox{name = "sync", actions = {"notes.add"}, rejected = "notes.refused", retry = {first_ms = 10, max_ms = 80},
          send = function(entry, reply)
            local code
            flux.spawn({"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}\n", "--max-time", "5",
                        "-H", "X-Entry-Id: " .. entry.id, "--data-binary", tostring(entry.payload.n), "\#(url)"}, {
              on_line = function(line) code = line end,
              on_exit = function()
                if code == "200" then reply("ok")
                elseif code == "409" then reply("reject", "refused by the receiver")
                else reply("retry", "HTTP " .. tostring(code)) end
              end})
          end}
        """#
    }

    /// Each run adds the next four notes (after what the session kept), then waits for the outbox.
    static let work = """
        local s = flux.state("notes")
        for n = s.n + 1, math.min(s.n + 4, \(total)) do flux.dispatch("notes.add", {n = n}) end
        """

    static let check = """
        local s = flux.state("notes")
        print("items " .. table.concat(s.items, ","))
        print("refused " .. table.concat(s.refused, ","))
        print("pending " .. flux.outbox_state("sync").pending)
        """

    /// `FLUX_OUTBOX_KILLS` and `FLUX_OUTBOX_SEED` run it longer or otherwise, to hunt a failure seen once.
    @Test("SIGKILL at 30 random moments of runs sending 120 notes to a receiver that fails, dedupes and refuses one")
    func killAndRestart() throws {
        let settings = ProcessInfo.processInfo.environment
        let killCount = settings["FLUX_OUTBOX_KILLS"].flatMap(Int.init) ?? 30
        var random = SeededRandom(seed: settings["FLUX_OUTBOX_SEED"].flatMap(UInt64.init) ?? 3)
        let release = try FluxshProcess.releasePath()
        let receiver = try LoopbackReceiver(failFirst: 5) { $0 == String(Self.refusedNote) }
        defer { receiver.stop() }
        let folder = temporaryPath("outbox-crash")
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.plugin(url: receiver.url).write(toFile: folder + "/plugins/notes.lua", atomically: true, encoding: .utf8)
        try Self.work.write(toFile: folder + "/work.lua", atomically: true, encoding: .utf8)
        try Self.check.write(toFile: folder + "/check.lua", atomically: true, encoding: .utf8)
        let environment = ["XDG_STATE_HOME": folder + "/state"]
        let arguments = ["run", "--no-color", "--no-features", "--plugins", folder + "/plugins", "--session", "sync"]

        // Kills fall between a third of a run's time and its end, so that most cut into the sending rather
        // than the start. A run's time is the last one that ended by itself (at first, one that sends
        // nothing, plus a little): on a loaded machine the first start is slow, and kills drawn from it alone
        // could all come after the runs ended, leaving too few kills however many runs.
        let started = Date()
        _ = try FluxshProcess.run(arguments + [folder + "/check.lua"], environment: environment, executable: release)
        var runTime = Date().timeIntervalSince(started) + 0.2
        var kills = 0, runs = 0
        // Until every note arrived and 30 runs were killed (once all arrived, a killed run has nothing left
        // to send: it only restarts the session).
        while kills < killCount || receiver.taken.count + receiver.refused.count < Self.total {
            runs += 1
            try #require(runs < 400, "the notes never all arrived, or the runs were not killed: \(receiver.taken.count) taken, \(kills) kills after \(runs) runs")
            let killing = kills < killCount
            let delay = runTime * (0.33 + Double(random.next() % 670) / 1000)
            let begun = Date()
            let run = try FluxshProcess.run(arguments + [folder + "/work.lua", "--timeout", "20"], environment: environment,
                                            killAfter: killing ? delay : nil, executable: release)
            if run.status == SIGKILL {
                kills += 1
            } else {
                #expect(run.status == 0, "\(run.errors)")
                runTime = Date().timeIntervalSince(begun)
            }
        }
        #expect(kills >= killCount)

        let expected = (1 ... Self.total).filter { $0 != Self.refusedNote }.map(String.init)
        #expect(receiver.taken.map(\.payload) == expected, "every note arrived once, in order")
        #expect(receiver.refused.map(\.payload) == [String(Self.refusedNote)])
        #expect(receiver.taken.map(\.id) == receiver.taken.map(\.id).sorted(), "in the order they were queued")

        let final = try FluxshProcess.run(arguments + [folder + "/check.lua"], environment: environment, executable: release)
        let lines = final.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("items " + expected.joined(separator: ",")), "\(final.output)\(final.errors)")
        #expect(lines.contains("refused \(Self.refusedNote)"), "the refused note was compensated once: \(final.output)")
        #expect(lines.contains("pending 0"))
    }
}
