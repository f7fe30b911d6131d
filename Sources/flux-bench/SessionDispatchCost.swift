import Flux
import FluxLua
import FluxSession
import Foundation
import Glibc

/// Workload 15: what a session adds to a dispatch with a payload, and the memory `:replay` takes.
///
/// - The same Lua store (`flux.store`, a handler reading its payload), dispatched to from a Lua loop
///   with a payload that differs at every action (so no two journal entries are one run), in its own
///   VM without a session and in one kept in a session; the session's time includes the save a line
///   ends with. Rounds alternate, and the ratio is taken within each. Target (issue 35): at most 1.3.
/// - `:replay` of a 1,000,000-line log by the release `fluxsh`, in a session, and the process's peak
///   resident memory (`ru_maxrss`). Target: under 64 MB.
struct SessionDispatchCost {
    /// A Lua store and a loop dispatching `n` actions with payloads to it, returning its count.
    static let define = #"""
    flux.store{name = "kept", state = {count = 0, total = 0, last = ""}, on = {
      ["kept.add"] = function(s, a) s.count = s.count + 1; s.total = s.total + a.by; s.last = a.tag; return s end,
    }}
    local next = 0
    return function(n)
      for _ = 1, n do
        next = next + 1
        flux.dispatch("kept.add", {by = next, tag = "t" .. next})
      end
      return flux.state("kept").count
    end
    """#

    /// A VM with the store and its loop; kept in a new session in `directory` when given.
    static func prepare(sessionIn directory: URL?) throws -> (host: FluxHost, session: Session?, loop: LuaRef) {
        let dispatcher = Dispatcher()
        let host = FluxHost(dispatcher: dispatcher)
        host.report = { message in printError("flux-bench: \(message)") }
        var session: Session?
        if let directory {
            session = try Session.open(name: "cost", directory: directory, dispatcher: dispatcher, report: { message in
                printError("flux-bench: \(message)")
            }, clock: sessionClock())
        }
        let stack = host.vm.stack
        try stack.load(define, chunkName: "session-cost")
        try stack.pcall(arguments: 0, results: 1)
        let loop = stack.ref(at: -1)
        stack.pop()
        session?.restore()
        session?.attach()
        return (host, session, loop)
    }

    /// The session's clock: the time, or with `FLUX_BENCH_SESSION_TICK=S` a clock that advances S seconds
    /// at each reading (about one per action), so that its saves come after the same actions however
    /// slowly it runs (under callgrind, where 100 ms is fifty times fewer actions).
    static func sessionClock() -> () -> Double {
        guard let tick = ProcessInfo.processInfo.environment["FLUX_BENCH_SESSION_TICK"].flatMap(Double.init), tick > 0 else {
            return { Date().timeIntervalSince1970 }
        }
        var now = 1_795_000_000.0
        return {
            now += tick
            return now
        }
    }

    /// The seconds `count` dispatches take, with the save that ends the line in a session.
    static func line(_ prepared: (host: FluxHost, session: Session?, loop: LuaRef), count: Int) throws -> Double {
        try Measure.seconds {
            _ = try prepared.host.vm.call(prepared.loop, results: 1, arguments: { $0.push(count) }) { lua, results in
                lua.integer(at: results.lowerBound) ?? -1
            }
            if let session = prepared.session, !session.save() { throw BenchmarkFailure("session cost: a save failed") }
        }
    }

    static func figures(_ options: Options) throws -> [Figure] {
        let workload = "15 session cost"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flux-bench-cost-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = options.luaActions
        if let inSession = options.sessionHalf { return [try half(inSession: inSession, options, folder: folder)] }
        progress("session cost: \(options.runs) rounds of \(count) Lua dispatches with payloads, without and with a session")
        let plain = try prepare(sessionIn: nil)
        let kept = try prepare(sessionIn: folder)
        if options.warmUp {
            _ = try line(plain, count: max(1, count / 10))
            _ = try line(kept, count: max(1, count / 10))
        }
        var without = Samples(), with = Samples(), ratio = Samples()
        for _ in 0 ..< options.runs {
            let a = try line(plain, count: count), b = try line(kept, count: count)
            without.add(a / Double(count) * 1e6)
            with.add(b / Double(count) * 1e6)
            ratio.add(b / a)
        }
        kept.session?.close()
        var figures = [
            Figure(workload: workload, name: "Lua dispatch with payload", samples: without, unit: "µs", notes: "no session"),
            Figure(workload: workload, name: "the same in a session", samples: with, unit: "µs", notes: "journal and save included"),
            Figure(workload: workload, name: "session ratio", samples: ratio, unit: "×", notes: "with ÷ without; target ≤ 1.3"),
        ]
        figures.append(try replayMemory(options, folder: folder))
        return figures
    }

    /// One half alone (`--session-half`): one line of `--lua-actions` dispatches in the VM without a
    /// session or in the one kept in a session, for callgrind to count (N and 2N, the difference).
    static func half(inSession: Bool, _ options: Options, folder: URL) throws -> Figure {
        let count = options.luaActions
        progress("session cost: \(count) Lua dispatches with payloads, \(inSession ? "in a session" : "without a session") only")
        let prepared = try prepare(sessionIn: inSession ? folder : nil)
        if options.warmUp { _ = try line(prepared, count: max(1, count / 10)) }
        var samples = Samples()
        samples.add(try line(prepared, count: count) / Double(count) * 1e6)
        prepared.session?.close()
        return Figure(workload: "15 session cost", name: inSession ? "the same in a session" : "Lua dispatch with payload",
                      samples: samples, unit: "µs", notes: inSession ? "journal and save included" : "no session")
    }

    /// The peak memory of the release `fluxsh` replaying a log of `FLUX_BENCH_REPLAY_LINES` (1,000,000)
    /// lines in a session.
    static func replayMemory(_ options: Options, folder: URL) throws -> Figure {
        let lines = ProcessInfo.processInfo.environment["FLUX_BENCH_REPLAY_LINES"].flatMap(Int.init) ?? 1_000_000
        let name = "replay of \(lines / 1000)k lines, peak RSS"
        guard let path = ShellStartup.locate() else {
            return Figure(workload: "15 session cost", name: name, samples: Samples(), unit: "MB", notes: "no fluxsh beside flux-bench")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("replay.jsonl").path
        guard let stream = fopen(log, "w") else { throw BenchmarkFailure("replay: cannot write \(log)") }
        // A new game, then a token: every line applies, and no two in a row are one journal run.
        for index in 1 ... lines {
            fputs(index % 2 == 1 ? #"{"name":"ticTacToe.reset","payload":{},"time":1795000000.5}"# + "\n"
                  : #"{"name":"ticTacToe.placeToken","payload":{"index":\#(index / 2 % 9)},"time":1795000000.5}"# + "\n", stream)
        }
        fclose(stream)
        progress("replay: the release fluxsh replays \(lines) lines in a session")
        var samples = Samples()
        for _ in 0 ..< options.shellRuns {
            let state = folder.appendingPathComponent("state").path
            try? FileManager.default.removeItem(atPath: state)
            setenv("XDG_STATE_HOME", state, 1)
            var usage = rusage()
            let run = try ShellStartup(path: path).run(input: ":replay \(log)\n:quit\n", arguments: ["--no-color", "--session", "replay"])
            if let failure = run.failure { throw BenchmarkFailure("replay: fluxsh ended with \(failure)") }
            getrusage(RUSAGE_CHILDREN.rawValue, &usage)
            samples.add(Double(usage.ru_maxrss) / 1024)
            unsetenv("XDG_STATE_HOME")
        }
        return Figure(workload: "15 session cost", name: name, samples: samples, unit: "MB", notes: "target < 64")
    }
}
