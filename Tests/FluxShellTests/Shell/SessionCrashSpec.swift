import Foundation
import Testing

/// A scripted run of fluxsh in a session, killed with SIGKILL at random points and restarted in the
/// same session each time: after every restart the stores and the undo history are those after some
/// line at or past the last one acknowledged — nothing acknowledged is lost, nothing is half there —
/// or, within a line that runs long (saved every 100 ms while it runs), after part of it.
@Suite("Sessions survive kill -9")
struct SessionCrashSpec {
    /// A Lua store with floats, a large integer and a follow-up its subscriber dispatches.
    static let plugin = #"""
    flux.store{name = "bag", state = {n = 0, f = 0.5, big = 9007199254740993, ticks = 0, echoed = 0, tags = {}}, on = {
      ["bag.add"] = function(s, a) s.n = s.n + a.n; s.f = s.f + a.f; s.big = s.big + 1; s.tags[#s.tags + 1] = a.tag; return s end,
      ["bag.tick"] = function(s) s.ticks = s.ticks + 1; return s end,
      ["bag.echo"] = function(s, a) s.echoed = a.at; return s end,
    }}
    flux.subscribe("bag", function(s)
      if s.n % 3 == 0 and s.echoed ~= s.n then flux.dispatch("bag.echo", {at = s.n}) end
    end)
    """#

    /// The scripted run: one line per step, Lua and : commands, Swift and Lua stores, groups, undo,
    /// redo, follow-ups, and long loops that save every 100 ms while they run.
    static func script(seed: UInt64, lines: Int) -> [String] {
        var random = SeededRandom(seed: seed)
        return (1 ... lines).map { line in
            let n = Int(random.next() % 7)
            switch random.next() % 10 {
            case 0, 1: return #"flux.dispatch("bag.add", {n = \#(n), f = \#(n).25, tag = "t\#(line)"})"#
            case 2: return ":dispatch ticTacToe.placeToken {index = \(random.next() % 9)}"
            case 3: return #"flux.group("pair \#(line)", function() flux.dispatch("bag.add", {n = 1, f = 1.0, tag = "a"}) flux.dispatch("ticTacToe.placeToken", {index = \#(random.next() % 9)}) end)"#
            case 4: return ":undo"
            case 5: return ":redo"
            case 6: return ":dispatch ticTacToe.reset"
            case 7: return "for i = 1, \(300 + n * 300) do flux.dispatch('bag.tick') end"
            default: return #"flux.dispatch("bag.add", {n = \#(n * 1000), f = \#(n) / 3, tag = "u\#(line)"})"#
            }
        }
    }

    /// What identifies the shell's state: every store's state, the undo and redo steps, the journal's length.
    static let digestLines = [":state", ":history", ":session"]

    static func digest(of output: String) -> String {
        output.split(separator: "\n").filter { !$0.hasPrefix("file ") && !$0.hasPrefix("session ") && !$0.hasPrefix("@@") }
            .map { $0.hasPrefix("journal ") ? $0.components(separatedBy: " action")[0] : String($0) } // not the rows or bytes
            // Of an undo step (`  #12 bag.add {n = 1}  → bag`) only the number and the label's first word are
            // compared: a shell that ran long has forgotten the payloads of its older steps (the devtools keep
            // the recent ones), a restarted one lists those saved with each step.
            .filter { $0.range(of: #"^\s+→ "#, options: .regularExpression) == nil }
            .map { $0.replacingOccurrences(of: #"^(\s+#\d+ \S+).*$"#, with: "$1", options: .regularExpression) }
            .joined(separator: "\n")
    }

    /// The journal's length in a digest (`journal  N`).
    static func journalLength(_ digest: String) -> Int {
        digest.split(separator: "\n").first { $0.hasPrefix("journal ") }
            .flatMap { Int($0.dropFirst(8).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// `FLUX_CRASH_KILLS`, `FLUX_CRASH_SEED` (the kill delays) and `FLUX_CRASH_SCRIPT_SEED` run it longer or
    /// otherwise, to hunt a failure seen once; by default 50 kills, as in every run of the suite.
    @Test("SIGKILL at 50 random points of a scripted run; each restart has what was acknowledged")
    func killAndRestart() throws {
        let settings = ProcessInfo.processInfo.environment
        let killCount = settings["FLUX_CRASH_KILLS"].flatMap(Int.init) ?? 50
        let killSeed = settings["FLUX_CRASH_SEED"].flatMap(UInt64.init) ?? 7
        let scriptSeed = settings["FLUX_CRASH_SCRIPT_SEED"].flatMap(UInt64.init) ?? 19
        let folder = temporaryPath("crash")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.plugin.write(toFile: folder + "/bag.lua", atomically: true, encoding: .utf8)
        let environment = ["XDG_STATE_HOME": folder + "/state"]
        let arguments = ["--no-color", "--plugins", folder, "--session", "crash"]
        let script = Self.script(seed: scriptSeed, lines: 120)

        // The reference: the whole run in a session of its own, its digest after every line (between
        // `@@ N` and `@@.`, apart from what the lines print).
        let digest = Self.digestLines.joined(separator: "\n") + "\nio.write('@@.\\n')\n"
        var reference = "io.write('@@ 0\\n')\n" + digest
        for (index, line) in script.enumerated() {
            reference += line + "\nio.write('@@ \(index + 1)\\n')\n" + digest
        }
        let whole = try FluxshProcess.run(["--no-color", "--plugins", folder, "--session", "reference"],
                                          input: reference, environment: environment)
        let digests = whole.output.components(separatedBy: "@@ ").dropFirst().map { part in
            Self.digest(of: String(part.drop { $0 != "\n" }.dropFirst().prefix { $0 != "@" }))
        }
        #expect(digests.count == script.count + 1)

        var random = SeededRandom(seed: killSeed)
        var next = 1 // the first line not known to be applied
        var kills = 0
        var furthest = 0
        var startup = 0.0
        while kills < killCount {
            if next > script.count { next = 1; try? FileManager.default.removeItem(atPath: folder + "/state") }
            var input = ""
            for index in next ... script.count {
                input += script[index - 1] + "\nio.write('ack \(index)\\n') io.flush()\n"
            }
            // Past the start-up (as long as the last restart took, which grows with the load): the kill
            // falls inside the run, not always before its first line.
            let delay = startup + Double(random.next() % 80) / 1_000
            let run = try FluxshProcess.run(arguments, input: input, environment: environment, killAfter: delay)
            kills += 1
            let acknowledged = run.output.split(separator: "\n").compactMap { line in
                line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil
            }.max() ?? (next - 1)
            let started = Date()
            let check = try FluxshProcess.run(arguments, input: digest, environment: environment)
            startup = Date().timeIntervalSince(started)
            let restored = Self.digest(of: check.output)
            let candidates = (acknowledged ... script.count).filter { digests[$0] == restored }
            #expect(!check.errors.contains("no longer"), "\(check.errors)")
            if let line = candidates.min() {
                next = line + 1
            } else {
                // A line that runs long is saved every 100 ms while it runs (between whole groups and
                // actions with their follow-ups): the restart may hold part of one, past the acknowledged
                // line. Then the run starts over in a new session.
                let length = Self.journalLength(restored)
                let inside = (acknowledged + 1 ... script.count).first { line in
                    Self.journalLength(digests[line - 1]) < length && length < Self.journalLength(digests[line])
                }
                try #require(inside != nil,
                             "kill \(kills) after \(delay) s: line \(acknowledged) was acknowledged, but the restarted shell has a state of no line from there on, nor of part of one:\n\(restored)\n\(check.errors)\nafter line \(acknowledged):\n\(digests[acknowledged])")
                furthest = max(furthest, inside! - 1)
                try? FileManager.default.removeItem(atPath: folder + "/state")
                next = 1
                continue
            }
            furthest = max(furthest, next - 1)
        }
        #expect(furthest > script.count / 4, "the kills came late enough to cut into the run")
    }
}

/// SplitMix64: a small generator whose runs can be reproduced from the seed.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
