import Flux
import FluxSession
import FluxShell
import Foundation
import Testing

/// Every reader of the stream of settled commits — the session's journal, `:record`'s log, `:log` and
/// `flux.on` listeners — gets the same commits: what can no longer roll back, each once, in one order,
/// with follow-ups and effects' actions marked.
@Suite("The readers of settled commits", .serialized)
struct SettledCommitReadersSpec {
    /// A shell kept in a session, recording, logging and listening, with a store that refuses on request.
    final class Readers {
        let t = EffectsTranscript()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("readers-\(UUID().uuidString)")
        let log: String
        let session: Session
        /// The entries `:log` printed of committed actions (their first lines), and of refused ones.
        private(set) var logged: [String] = []
        private(set) var refused: [String] = []

        init() throws {
            log = folder.path + "/record.jsonl"
            t.type("""
                flux.store{name = 'tally', state = {n = 0}, on = {
                  ['tally.add'] = function(s, a) if a.by < 0 then error('no negative tally') end s.n = s.n + a.by; return s end,
                  ['tally.echo'] = function(s, a) s.echo = a.of; return s end,
                }}
                """)
            session = try Session.open(name: "readers", directory: folder, dispatcher: t.shell.dispatcher)
            session.restore()
            session.attach()
            t.type("heard = {}")
            t.type("flux.on('tally.*', function(a) heard[#heard + 1] = a.type .. ' ' .. tostring(a.by or a.of) end)")
            #expect(t.type(":record \(log)").ok)
            #expect(t.type(":log on").ok)
        }

        deinit {
            session.close()
            try? FileManager.default.removeItem(at: folder)
        }

        /// Types `input`, keeping what `:log` printed of it.
        @discardableResult
        func type(_ input: String) -> (ok: Bool, output: String, errors: String) {
            let result = t.type(input)
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, line) in lines.enumerated() where line.hasPrefix("tally.") {
                let failed = index + 1 < lines.count && lines[index + 1].hasPrefix("  failed:")
                if failed { refused.append(Self.logShort(line)) } else { logged.append(line) }
            }
            return result
        }

        /// The actions each reader got, as `name by` (`:log`'s refused ones left out), after the session saved.
        func read() throws -> (journal: [String], recording: [String], log: [String], listeners: [String]) {
            let ok = session.save()
            #expect(ok)
            let journal = try session.journal(1 ... max(1, session.journalLength)).map(\.line).filter { $0.contains("tally.") }
            let recording = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
            let listeners = t.value("table.concat(heard, '|')").split(separator: "|").map(String.init)
            return (journal.map(Self.short), recording.map(Self.short), logged.map(Self.logShort),
                    listeners)
        }

        /// A log line as `tally.add 2 [followUp] [effect]`.
        static func short(_ line: String) -> String {
            let name = line.firstMatch(of: /"name":"([^"]+)"/).map { String($0.1) } ?? "?"
            let value = line.firstMatch(of: /"(?:by|of)":(-?[0-9]+)/).map { String($0.1) } ?? "?"
            return [name, value, line.contains(#""followUp":true"#) ? "followUp" : nil, line.contains(#""effect":true"#) ? "effect" : nil]
                .compactMap { $0 }.joined(separator: " ")
        }

        /// A `:log` entry's first line (`tally.add {by = 2}`) as `tally.add 2`.
        static func logShort(_ line: String) -> String {
            let name = line.split(separator: " ").first.map(String.init) ?? "?"
            let value = line.firstMatch(of: /(?:by|of) = (-?[0-9]+)/).map { String($0.1) } ?? "?"
            return name + " " + value
        }
    }

    @Test("a rolled-back action — a failing handler in a group, a refused dispatch, a group undone, a failed :replay — reaches no reader")
    func rolledBack() throws {
        let r = try Readers()
        r.type("flux.dispatch('tally.add', {by = 1})")
        // A handler fails in a group: the group's earlier action is rolled back with it.
        #expect(!r.type("flux.group('bad', function() flux.dispatch('tally.add', {by = 2}); flux.dispatch('tally.add', {by = -3}) end)").ok)
        // Refused at once.
        #expect(!r.type("flux.dispatch('tally.add', {by = -4})").ok)
        // A group whose body fails after its actions committed: undone before it commits.
        r.type("pcall(flux.group, 'undone', function() flux.dispatch('tally.add', {by = 5}); error('changed my mind') end)")
        // A replay that fails on its last line rolls back every line before it.
        let bad = r.folder.path + "/bad.jsonl"
        try """
            {"name":"tally.add","payload":{"by":6}}
            {"name":"tally.add","payload":{"by":-7}}
            """.write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(!r.type(":replay \(bad)").ok)
        r.type("flux.dispatch('tally.add', {by = 8})")
        #expect(r.t.value("flux.state('tally').n") == "9")
        // :log shows the refused ones at once, as refused, from the monitor's own hook: they never commit.
        #expect(r.refused == ["tally.add -3", "tally.add -4", "tally.add -7"])
        let read = try r.read()
        #expect(read.journal == ["tally.add 1", "tally.add 8"])
        #expect(read.recording == ["tally.add 1", "tally.add 8"])
        #expect(read.log == ["tally.add 1", "tally.add 8"])
        #expect(read.listeners == ["tally.add 1", "tally.add 8"])
    }

    @Test("a group's actions reach each reader once, when it commits")
    func groupOnce() throws {
        let r = try Readers()
        // Inside the group, before it ends: nothing of it is in the log file or told to a listener.
        r.type("""
            flux.group('pair', function()
              flux.dispatch('tally.add', {by = 1}); flux.dispatch('tally.add', {by = 2})
              local f = io.open('\(r.log)'); inside = f and f:read('a') or ''; if f then f:close() end
              insideHeard = #heard
            end)
            """)
        #expect(r.t.value("inside") == "")
        #expect(r.t.value("insideHeard") == "0")
        let read = try r.read()
        #expect(read.journal == ["tally.add 1", "tally.add 2"])
        #expect(read.recording == ["tally.add 1", "tally.add 2"])
        #expect(read.log == ["tally.add 1", "tally.add 2"])
        #expect(read.listeners == ["tally.add 1", "tally.add 2"])
        let lines = try String(contentsOfFile: r.log, encoding: .utf8)
        #expect(lines.components(separatedBy: #""label":"pair""#).count - 1 == 2, "both lines name their group: \(lines)")
    }

    @Test("the journal's order is the recording's is flux.on's, follow-ups and effects' actions marked")
    func oneOrder() throws {
        let r = try Readers()
        // A follow-up: a subscriber dispatches while the third tally is published.
        r.type("flux.subscribe('tally', function(s) if s.n == 3 and not echoed then echoed = true; flux.dispatch('tally.echo', {of = 3}) end end)")
        // An effect's action: a timer dispatches.
        r.type("flux.after(10, function() flux.dispatch('tally.add', {by = 10}) end)")
        r.type("flux.dispatch('tally.add', {by = 1})")
        r.type("flux.dispatch('tally.add', {by = 2})")
        r.type("flux.advance(10)")
        r.type("flux.group('g', function() flux.dispatch('tally.add', {by = 20}); flux.dispatch('tally.add', {by = 21}) end)")
        let read = try r.read()
        let marked = ["tally.add 1", "tally.add 2", "tally.echo 3 followUp", "tally.add 10 effect", "tally.add 20", "tally.add 21"]
        #expect(read.journal == marked)
        #expect(read.recording == marked)
        let plain = marked.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(read.listeners == plain)
        #expect(read.log == plain)
    }
}
