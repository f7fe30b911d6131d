import FluxEffects
import FluxLua
import Foundation

/// Workload 14, effects: what the event loop costs.
///
/// - timers: `flux.every(1, …)` dispatching into the bench store, 1,000 firings a second for two seconds,
///   in CPU milliseconds per 1,000 firings (a second's worth); the ratio is to the same dispatches, one a
///   millisecond, from Swift with a plain sleep between them (no event loop): what the loop adds to the
///   wake-ups any 1,000-a-second work pays. The unpaced dispatches alone are given for scale.
/// - idle: the release `fluxsh` waiting at its prompt (input a pipe that stays open) for 10 s, its CPU
///   milliseconds over them: an idle shell polls nothing.
/// - lines: `seq 1 200000` through `flux.spawn`, each line a dispatch into the bench store, in lines per second.
enum EffectsBench {
    static func figures(_ options: Options) throws -> [Figure] {
        var timer = Samples(), paced = Samples(), plain = Samples(), lines = Samples(), idle = Samples()
        for _ in 0 ..< max(1, min(options.runs, 3)) {
            let figures = try timers()
            timer.add(figures.timer)
            paced.add(figures.paced)
            plain.add(figures.unpaced)
            lines.add(try processLines())
        }
        if let shell = ShellStartup.locate() { idle.add(try idleShell(shell, seconds: 10)) }
        return [
            Figure(workload: "14 effects", name: "1,000 timer dispatches/s", samples: timer, unit: "ms CPU/s",
                   notes: "same dispatches paced by a sleep, no loop, \(fixed(paced.median, decimals: 2)) ms: ×\(fixed(timer.median / max(paced.median, 0.001), decimals: 2)); unpaced \(fixed(plain.median, decimals: 2)) ms"),
            Figure(workload: "14 effects", name: "idle shell, 10 s", samples: idle, unit: "ms CPU",
                   notes: idle.isEmpty ? "no release fluxsh beside flux-bench" : ""),
            Figure(workload: "14 effects", name: "process lines → store", samples: lines, unit: "k lines/s"),
        ]
    }

    /// CPU milliseconds a second (per 1,000 firings, so that a timer running late is not flattered) while
    /// a 1 ms timer dispatches, 2,000 times; and the same for the same dispatches without the loop: Swift
    /// calling the same kind of Lua function once a millisecond, a plain sleep in between. Both pay the
    /// process's 1,000 wake-ups a second; what differs is the loop's own cost. The unpaced cost of the
    /// dispatches alone (a Lua loop, no wake-ups) comes third, for scale.
    static func timers() throws -> (timer: Double, paced: Double, unpaced: Double) {
        let firings = 2000
        let bench = LuaBench()
        let run = try bench.host.vm.load("""
        local fired = 0
        local t; t = flux.every(1, function()
          fired = fired + 1
          flux.dispatch("bench.increment")
          if fired == \(firings) then t:cancel() end
        end)
        """, chunkName: "effects-bench")
        try bench.host.vm.call(run) { _ in }
        let cpuBefore = cpu()
        bench.host.effects.runUntilIdle(timeout: 10_000)
        let timer = (cpu() - cpuBefore) / Double(firings) * 1000
        guard bench.store.state.count == firings else {
            throw BenchmarkFailure("effects: \(bench.store.state.count) of \(firings) timer dispatches")
        }

        let plain = LuaBench()
        let once = try plain.host.vm.load("flux.dispatch('bench.increment')", chunkName: "effects-paced")
        var next = timespec()
        clock_gettime(CLOCK_MONOTONIC, &next)
        let pacedBefore = cpu()
        for _ in 0 ..< firings {
            next.tv_nsec += 1_000_000
            if next.tv_nsec >= 1_000_000_000 { next.tv_sec += 1; next.tv_nsec -= 1_000_000_000 }
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nil) == EINTR {}
            try plain.host.vm.call(once) { _ in }
        }
        let paced = (cpu() - pacedBefore) / Double(firings) * 1000
        guard plain.store.state.count == firings else {
            throw BenchmarkFailure("effects: \(plain.store.state.count) of \(firings) paced dispatches")
        }

        let loop = try bench.loop("""
        return function(n) for i = 1, n do flux.dispatch("bench.increment") end return n end
        """, chunkName: "effects-plain")
        let unpacedBefore = cpu()
        _ = try bench.time(loop, count: 20_000)
        let unpaced = (cpu() - unpacedBefore) / 20
        return (timer, paced, unpaced)
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
