import FluxEffects
import FluxLua
import Foundation

/// Workload 14, effects: what the event loop costs.
///
/// - timers: `flux.every(1, …)` dispatching into the bench store, in CPU milliseconds per 1,000 firings
///   (a second's worth), against the same Lua function called from Swift once a millisecond with
///   `clock_nanosleep(TIMER_ABSTIME)` between the calls (no event loop): both pay 1,000 wake-ups a second
///   and the same dispatches; what differs is the loop's own cost. The two run in alternated rounds of
///   1,000 firings in the same VM, and the ratio is taken within each round, so load from elsewhere
///   falls on both alike: the table gives the median ratio and its spread over the rounds. The unpaced
///   dispatches alone are given for scale.
/// - idle: the release `fluxsh` waiting at its prompt (input a pipe that stays open) for 10 s, its CPU
///   milliseconds over them: an idle shell polls nothing.
/// - lines: `seq 1 200000` through `flux.spawn`, each line a dispatch into the bench store, in lines per second.
enum EffectsBench {
    static func figures(_ options: Options) throws -> [Figure] {
        var lines = Samples(), idle = Samples()
        let environment = ProcessInfo.processInfo.environment
        if let phase = environment["FLUX_BENCH_TIMER_PHASE"] {
            // For counting instructions (callgrind counts user-space ones only, and runs ~50 times slower, so
            // a longer interval keeps the timer from falling behind): one phase alone, whose count less the
            // other's, over the firings, is a firing's cost besides Lua's.
            let interval = Int(environment["FLUX_BENCH_TIMER_MS"] ?? "1") ?? 1
            let timers = try timerRounds(max(1, options.runs), only: phase, interval: interval)
            return [Figure(workload: "14 effects", name: "\(phase) phase alone, every \(interval) ms", samples: phase == "timer" ? timers.timer : timers.paced, unit: "ms CPU/1,000")]
        }
        let timers = try timerRounds(max(9, options.runs * 3))
        for _ in 0 ..< max(1, min(options.runs, 3)) { lines.add(try processLines()) }
        if let shell = ShellStartup.locate() { idle.add(try idleShell(shell, seconds: 10)) }
        let ratios = timers.ratio.values.sorted()
        let quarter = ratios.count / 4
        return [
            Figure(workload: "14 effects", name: "1,000 timer dispatches/s", samples: timers.timer, unit: "ms CPU/s",
                   notes: "the same dispatches paced by a sleep, no loop: \(fixed(timers.paced.median, decimals: 2)) ms; unpaced \(fixed(timers.unpaced.median, decimals: 2)) ms"),
            Figure(workload: "14 effects", name: "timer ÷ paced, per round", samples: timers.ratio, unit: "×",
                   notes: "\(ratios.count) alternated rounds of 1,000 firings; middle half ×\(fixed(ratios[quarter], decimals: 3))–\(fixed(ratios[ratios.count - 1 - quarter], decimals: 3)); target ≤ 1.05"),
            Figure(workload: "14 effects", name: "firings a second, flux.every(1)", samples: timers.rate, unit: "/s",
                   notes: "1,000 firings over the timer phase's wall time; the paced phase sleeps to absolute times: 1,000"),
            Figure(workload: "14 effects", name: "idle shell, 10 s", samples: idle, unit: "ms CPU",
                   notes: idle.isEmpty ? "no release fluxsh beside flux-bench" : ""),
            Figure(workload: "14 effects", name: "process lines → store", samples: lines, unit: "k lines/s"),
        ]
    }

    /// `rounds` rounds, each a timer phase and a paced phase of 1,000 firings (in alternating order), in
    /// CPU milliseconds per 1,000 firings; the ratio of the two within each round; and the unpaced cost of
    /// the dispatches alone (a Lua loop, no wake-ups), for scale.
    static func timerRounds(_ rounds: Int, only phase: String? = nil, interval: Int = 1) throws -> (timer: Samples, paced: Samples, ratio: Samples, unpaced: Samples, rate: Samples) {
        let firings = 1000
        let bench = LuaBench()
        // One function both phases call: the timer's callback, and what the paced loop calls.
        let setup = try bench.host.vm.load("""
        local fired, target, handle = 0, 0, nil
        function bench_tick()
          fired = fired + 1
          flux.dispatch("bench.increment")
          if fired == target then handle:cancel() end
        end
        function bench_every(n, ms)
          fired, target = 0, n
          handle = flux.every(ms, bench_tick)
        end
        function bench_paced() fired, target = 0, -1 end
        """, chunkName: "effects-bench")
        try bench.host.vm.call(setup) { _ in }
        let every = bench.host.vm.globalRef("bench_every")
        let paced = bench.host.vm.globalRef("bench_paced")
        let tick = bench.host.vm.globalRef("bench_tick")

        var rate = Samples()
        func timerPhase() throws -> Double {
            let before = bench.store.state.count
            try bench.host.vm.call(every) {
                $0.push(firings)
                $0.push(interval)
            }
            let cpuBefore = threadCPU()
            let start = DispatchTime.now().uptimeNanoseconds
            bench.host.effects.runUntilIdle(timeout: Double(firings * interval) * 10)
            let cpu = threadCPU() - cpuBefore
            rate.add(Double(firings) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
            guard bench.store.state.count - before == firings else {
                throw BenchmarkFailure("effects: \(bench.store.state.count - before) of \(firings) timer dispatches")
            }
            return cpu / Double(firings) * 1000
        }

        func pacedPhase() throws -> Double {
            let before = bench.store.state.count
            try bench.host.vm.call(paced) { _ in }
            var next = timespec()
            clock_gettime(CLOCK_MONOTONIC, &next)
            let cpuBefore = threadCPU()
            for _ in 0 ..< firings {
                next.tv_nsec += interval * 1_000_000
                while next.tv_nsec >= 1_000_000_000 { next.tv_sec += 1; next.tv_nsec -= 1_000_000_000 }
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nil) == EINTR {}
                try bench.host.vm.call(tick) { _ in }
            }
            let cpu = threadCPU() - cpuBefore
            guard bench.store.state.count - before == firings else {
                throw BenchmarkFailure("effects: \(bench.store.state.count - before) of \(firings) paced dispatches")
            }
            return cpu / Double(firings) * 1000
        }

        if let phase {
            var alone = Samples()
            for _ in 0 ..< rounds + 1 { alone.add(phase == "timer" ? try timerPhase() : try pacedPhase()) }
            return (alone, alone, Samples(), Samples(), rate)
        }
        _ = try timerPhase() // warm-up: the first firings' one-time costs fall on neither figure
        _ = try pacedPhase()
        rate = Samples()
        var timer = Samples(), pacedCPU = Samples(), ratio = Samples()
        for round in 0 ..< rounds {
            let t: Double, p: Double
            if round.isMultiple(of: 2) {
                t = try timerPhase()
                p = try pacedPhase()
            } else {
                p = try pacedPhase()
                t = try timerPhase()
            }
            timer.add(t)
            pacedCPU.add(p)
            ratio.add(t / max(p, 0.001))
        }

        let loop = try bench.loop("""
        return function(n) for i = 1, n do flux.dispatch("bench.increment") end return n end
        """, chunkName: "effects-plain")
        let unpacedBefore = threadCPU()
        _ = try bench.time(loop, count: 20_000)
        let unpaced = Samples([(threadCPU() - unpacedBefore) / 20])
        return (timer, pacedCPU, ratio, unpaced, rate)
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

    /// The calling thread's CPU milliseconds (user and system): the loop and the paced calls run on it,
    /// and no other thread's work is counted with them.
    static func threadCPU() -> Double {
        var usage = rusage()
        getrusage(1, &usage) // RUSAGE_THREAD (Linux), which Glibc's module does not export
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
