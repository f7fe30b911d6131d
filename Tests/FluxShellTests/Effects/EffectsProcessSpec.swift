import Foundation
import Testing

/// `fluxsh run` with effects, and no child outliving the shell: the built `fluxsh` as a user runs it.
@Suite("fluxsh run with effects", .serialized)
struct EffectsProcessSpec {
    static func script(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "effects-run-\(UUID().uuidString).lua"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("fluxsh run keeps running while a timer is live and ends when none is left")
    func waitsForTimers() throws {
        let path = try Self.script("""
        local n = 0
        local t; t = flux.every(20, function() n = n + 1; print('tick ' .. n); if n == 3 then t:cancel() end end)
        flux.after(30, function() print('after') end)
        """)
        let result = try FluxshProcess.run(["run", path])
        #expect(result.status == 0)
        #expect(result.output.contains("tick 3"))
        #expect(result.output.contains("after"))
        #expect(!result.output.contains("tick 4"))
    }

    @Test("fluxsh run exits 1 when a callback failed, with the error and its traceback")
    func failedCallback() throws {
        let path = try Self.script("flux.after(1, function() error('late failure') end)")
        let result = try FluxshProcess.run(["run", path])
        #expect(result.status == 1)
        #expect(result.errors.contains("late failure"))
        #expect(result.errors.contains("stack traceback"))
    }

    @Test("fluxsh run --timeout ends a run whose effects never end, and their processes with it")
    func timeout() throws {
        let marker = NSTemporaryDirectory() + "effects-pid-\(UUID().uuidString)"
        let path = try Self.script("""
        flux.every(50, function() end)
        local p = flux.spawn({'sleep', '60'})
        local f = io.open('\(marker)', 'w'); f:write(p:pid()); f:close()
        """)
        let start = Date()
        let result = try FluxshProcess.run(["run", "--timeout", "0.5", path])
        #expect(result.status == 0)
        #expect(Date().timeIntervalSince(start) < 10)
        let pid = Int32(try String(contentsOfFile: marker, encoding: .utf8)) ?? 0
        #expect(pid > 0 && !isRunning(pid))
    }

    @Test("Ctrl-C ends a fluxsh run that waits for timers alone at once (its loop sleeps on no descriptor), with the effects ended and said so")
    func interruptTimersAlone() throws {
        let path = try Self.script("""
        flux.after(60000, function() print('never') end)
        flux.every(20000, function() print('never either') end)
        """)
        let start = Date()
        let result = try FluxshProcess.run(["run", path], interruptAfter: 1, executable: FluxshProcess.releasePath())
        #expect(Date().timeIntervalSince(start) < 15)
        #expect(result.errors.contains("interrupted: the effects still live were ended"))
        #expect(!result.output.contains("never"))
    }

    @Test("under kill -9 of the shell its child dies too (PR_SET_PDEATHSIG)")
    func killNine() throws {
        let marker = NSTemporaryDirectory() + "effects-pid-\(UUID().uuidString)"
        // The child names its parent (the shell) and itself once it runs; the shell is killed only then,
        // however slowly a loaded machine starts it.
        let path = try Self.script("""
        flux.spawn({'/bin/sh', '-c', 'echo $PPID $$ > \(marker).new && mv \(marker).new \(marker) && exec sleep 60'})
        """)
        let pids = Pids()
        DispatchQueue.global().async {
            for _ in 0 ..< 600 {
                if let text = try? String(contentsOfFile: marker, encoding: .utf8) {
                    let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
                    if numbers.count == 2 {
                        pids.set(shell: numbers[0], child: numbers[1])
                        kill(numbers[0], SIGKILL)
                        return
                    }
                }
                usleep(50_000)
            }
        }
        let result = try FluxshProcess.run(["run", path], killAfter: 40)
        let (shell, child) = pids.get()
        #expect(shell > 0 && child > 0, "the child never started: \(result.errors)")
        #expect(result.status == 128 + SIGKILL || result.status == -SIGKILL || result.status == SIGKILL)
        var alive = isRunning(child)
        for _ in 0 ..< 40 where alive {
            usleep(50_000)
            alive = isRunning(child)
        }
        #expect(!alive)
        if alive { kill(child, SIGKILL) }
    }

    /// The shell's and its child's process numbers, as the watching thread found them.
    private final class Pids: @unchecked Sendable {
        private let lock = NSLock()
        private var shell: Int32 = 0, child: Int32 = 0
        func set(shell: Int32, child: Int32) { lock.withLock { (self.shell, self.child) = (shell, child) } }
        func get() -> (Int32, Int32) { lock.withLock { (shell, child) } }
    }

    @Test("when the run ends, a process's whole group ends: its own children too (a process group)")
    func groupEnds() throws {
        let marker = NSTemporaryDirectory() + "effects-pid-\(UUID().uuidString)"
        // The shell's child starts a grandchild, which PR_SET_PDEATHSIG would not reach.
        let path = try Self.script("""
        flux.spawn({'/bin/sh', '-c', 'sleep 60 & echo $! > \(marker); wait'})
        flux.after(300, function() os.exit(0, true) end)
        """)
        let result = try FluxshProcess.run(["run", path])
        #expect(result.status == 0)
        let pid = Int32((try String(contentsOfFile: marker, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(pid > 0)
        usleep(200_000)
        #expect(!isRunning(pid))
    }

    @Test("fluxsh test runs timers on the virtual clock: an hour passes at once")
    func virtualClockInTest() throws {
        let path = try Self.script("""
        local count = 0
        flux.every(60000, function() count = count + 1 end)
        assert(flux.advance(3600000) == 60)
        assert(count == 60)
        """)
        let start = Date()
        let result = try FluxshProcess.run(["test", path])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(Date().timeIntervalSince(start) < 10)
    }
}
