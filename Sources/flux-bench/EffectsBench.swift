import FluxEffects
import FluxLua
import Foundation

/// Workload 12, effects: what the event loop costs.
///
/// - timers: `flux.every(1, …)` dispatching into the bench store, 1,000 firings a second for two seconds,
///   in CPU milliseconds per second of wall time; the ratio is to the CPU of the same dispatches from a
///   plain Lua loop (no event loop): how much the wake-ups add.
/// - idle: the release `fluxsh` waiting at its prompt (input a pipe that stays open) for 10 s, its CPU
///   milliseconds over them: an idle shell polls nothing.
/// - lines: `seq 1 200000` through `flux.spawn`, each line a dispatch into the bench store, in lines per second.
enum EffectsBench {
    static func figures(_ options: Options) throws -> [Figure] {
        var timer = Samples(), plain = Samples(), lines = Samples(), idle = Samples()
        for _ in 0 ..< max(1, min(options.runs, 3)) {
            let (busy, baseline) = try timers()
            timer.add(busy)
            plain.add(baseline)
            lines.add(try processLines())
        }
        if let shell = ShellStartup.locate() { idle.add(try idleShell(shell, seconds: 10)) }
        return [
            Figure(workload: "14 effects", name: "1,000 timer dispatches/s", samples: timer, unit: "ms CPU/s",
                   notes: "plain loop of the same dispatches \(fixed(plain.median, decimals: 2)) ms; ×\(fixed(timer.median / max(plain.median, 0.001), decimals: 1))"),
            Figure(workload: "14 effects", name: "idle shell, 10 s", samples: idle, unit: "ms CPU",
                   notes: idle.isEmpty ? "no release fluxsh beside flux-bench" : ""),
            Figure(workload: "14 effects", name: "process lines → store", samples: lines, unit: "k lines/s"),
        ]
    }

    /// CPU milliseconds a second while a 1 ms timer dispatches (two seconds), and the CPU milliseconds of
    /// as many dispatches from a plain loop, per second's worth (1,000).
    static func timers() throws -> (Double, Double) {
        let bench = LuaBench()
        let run = try bench.host.vm.load("""
        local fired = 0
        local t; t = flux.every(1, function()
          fired = fired + 1
          flux.dispatch("bench.increment")
          if fired == 2000 then t:cancel() end
        end)
        """, chunkName: "effects-bench")
        try bench.host.vm.call(run) { _ in }
        let cpuBefore = cpu(), wallBefore = Date()
        bench.host.effects.runUntilIdle(timeout: 10_000)
        let cpuUsed = cpu() - cpuBefore, wall = Date().timeIntervalSince(wallBefore)
        guard bench.store.state.count == 2000 else { throw BenchmarkFailure("effects: \(bench.store.state.count) of 2,000 timer dispatches") }
        let loop = try bench.loop("""
        return function(n) for i = 1, n do flux.dispatch("bench.increment") end return n end
        """, chunkName: "effects-plain")
        let plainBefore = cpu()
        _ = try bench.time(loop, count: 20_000)
        let plainPerThousand = (cpu() - plainBefore) / 20
        return (cpuUsed / wall, plainPerThousand)
    }

    /// Thousands of lines a second from a process into the store.
    static func processLines() throws -> Double {
        let bench = LuaBench()
        let count = 200_000
        let run = try bench.host.vm.load("""
        flux.spawn({"seq", "1", "\(count)"}, {on_line = function() flux.dispatch("bench.increment") end})
        """, chunkName: "effects-lines")
        let start = Date()
        try bench.host.vm.call(run) { _ in }
        try bench.host.effects.settle(timeout: 60_000)
        let seconds = Date().timeIntervalSince(start)
        guard bench.store.state.count == count else { throw BenchmarkFailure("effects: \(bench.store.state.count) of \(count) lines reached the store") }
        return Double(count) / seconds / 1000
    }

    /// The CPU milliseconds the release `fluxsh` at `path` uses waiting `seconds` for input.
    static func idleShell(_ path: String, seconds: Double) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--no-session"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1) // started
        let before = processCPU(process.processIdentifier)
        Thread.sleep(forTimeInterval: seconds)
        let after = processCPU(process.processIdentifier)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return after - before
    }

    /// This process's CPU milliseconds (user and system).
    static func cpu() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
    }

    /// Another process's CPU milliseconds, from /proc/PID/stat.
    static func processCPU(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
