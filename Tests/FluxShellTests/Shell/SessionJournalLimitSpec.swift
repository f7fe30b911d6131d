import Foundation
import Testing

private let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

/// Every way of running keeps a session's journal within its limit as it goes: one long unit of work
/// (a line typed at the prompt, a piped file, `fluxsh run --session`) dispatching thousands of distinct
/// actions, killed with SIGKILL before it ends, leaves a journal trimmed to about its limit, and the
/// state restored is the one the journal reaches.
@Suite("a session's journal limit, in every way of running")
struct SessionJournalLimitSpec {
    static let limit = 1_000

    /// Defines the store; a loop dispatches distinct actions for 0.6 s of CPU (several saves), then the
    /// process kills itself with SIGKILL: nothing after that runs, not even the save that ends a line.
    static let define = #"flux.store{name = "n", state = {count = 0}, on = {["n.add"] = function(s, a) s.count = s.count + 1; s.last = a.by; return s end}}"#
    static let loop = #"local t, i = os.clock(), 0; while os.clock() - t < 0.6 do i = i + 1; flux.dispatch("n.add", {by = i}) end; local f = io.open("/proc/self/stat"); local pid = f:read("n"); f:close(); os.execute("kill -9 " .. pid)"#

    /// What the next shell in the session says of its journal, before any line of its own could trim it,
    /// and of the store: (journal length, first entry kept, count).
    static func journal(state: String) throws -> (length: Int, first: Int, count: Int) {
        let after = try FluxshProcess.run(["--no-color", "--session", "limit"], input: ":session\n" + define + "\nflux.state('n').count\n",
                                          environment: ["XDG_STATE_HOME": state, "FLUXSH_JOURNAL_LIMIT": "\(limit)"])
        #expect(after.status == 0, "\(after.errors)")
        let text = after.output
        // "journal  N actions and steps in R rows, S on disk (from entry F; older ones compacted)"
        func number(after marker: String, in line: Substring) -> Int? {
            guard let range = line.range(of: marker) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        let line = text.split(separator: "\n").first { $0.hasPrefix("journal") } ?? ""
        let length = number(after: "journal  ", in: line) ?? -1
        let first = number(after: "from entry ", in: line) ?? 1
        let count = text.split(separator: "\n").last.flatMap { Int($0) } ?? -1
        return (length, first, count)
    }

    static func check(_ journal: (length: Int, first: Int, count: Int), _ mode: String) {
        // More than the limit and a tenth were journalled and saved, yet the journal holds at most that.
        #expect(journal.length > limit + limit / 10, "\(mode): too few entries saved to tell: \(journal)")
        #expect(journal.length - journal.first + 1 <= limit + limit / 10, "\(mode): journal not trimmed as it went: \(journal)")
        // The state restored is the one the journal's saved entries reach.
        #expect(journal.count == journal.length, "\(mode): \(journal)")
    }

    @Test("piped input: one long line")
    func piped() throws {
        let state = temporaryPath("limit-pipe")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let run = try FluxshProcess.run(["--no-color", "--session", "limit"], input: Self.define + "\n" + Self.loop + "\n",
                                        environment: ["XDG_STATE_HOME": state, "FLUXSH_JOURNAL_LIMIT": "\(Self.limit)"])
        #expect(run.status == SIGKILL, "\(run.errors)")
        Self.check(try Self.journal(state: state), "pipe")
    }

    @Test("fluxsh run --session: one script")
    func script() throws {
        let state = temporaryPath("limit-run")
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let path = state + "/long.lua"
        try (Self.define + "\n" + Self.loop + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let run = try FluxshProcess.run(["run", "--no-color", "--session", "limit", path],
                                        environment: ["XDG_STATE_HOME": state, "FLUXSH_JOURNAL_LIMIT": "\(Self.limit)"])
        #expect(run.status == SIGKILL, "\(run.errors)")
        Self.check(try Self.journal(state: state), "run")
    }

    @Test("the prompt: one line typed", .enabled(if: hasScript, "needs util-linux's script"))
    func typed() throws {
        let state = temporaryPath("limit-repl")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let terminal = try Terminal("--no-color --session limit", state: state, prelude: "export FLUXSH_JOURNAL_LIMIT=\(Self.limit)")
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type(Self.define + "\r")
        try terminal.waitFor("flux> ")
        terminal.type(Self.loop + "\r")
        _ = try terminal.exitStatus()
        Self.check(try Self.journal(state: state), "prompt")
    }
}
