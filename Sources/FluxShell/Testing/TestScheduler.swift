import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs test scripts in child processes, `jobs` at a time, and hands their reports on in the scripts'
/// order, whichever ends first. A script past `timeout`, and every script when the runner gets SIGINT,
/// SIGTERM or SIGHUP, is ended with its whole process group.
struct TestScheduler {
    let scripts: [String]
    let executable: String
    let jobs: Int
    let timeout: TimeInterval
    let stopAtFirstFailure: Bool
    /// The child's command line for a script, before `--report FILE SCRIPT`.
    let arguments: (String) -> [String]

    private struct Running {
        let index: Int
        let process: TestProcess
        let reportFile: String
    }

    /// Runs the scripts; `show` gets each report in order and says whether it counts.
    ///
    /// - Returns: the reports that count, in order.
    func run(show: (ScriptReport) -> Bool) -> [ScriptReport] {
        var done: [Int: ScriptReport] = [:]
        var running: [Running] = []
        var next = 0
        var shown = 0
        var kept: [ScriptReport] = []
        var stopping = false
        TestSignals.install()
        defer { TestSignals.uninstall() }
        fflush(nil)

        func finish(_ run: Running, failure: String?) {
            run.process.finish()
            var report = read(run.reportFile) ?? ScriptReport(script: scripts[run.index])
            try? FileManager.default.removeItem(atPath: run.reportFile)
            report.script = scripts[run.index]
            report.milliseconds = Date().timeIntervalSince(run.process.started) * 1000
            report.output = String(decoding: run.process.output, as: UTF8.self)
            report.errors = String(decoding: run.process.errors, as: UTF8.self)
            if let failure {
                report.failure = failure
            } else if let signal = run.process.signal {
                report.failure = "crashed with signal \(signal) (\(String(cString: strsignal(signal))))"
            } else if !report.finished, report.failure == nil {
                report.failure = "ended before its last line, with exit status \(run.process.exitStatus ?? -1) (os.exit?)"
            }
            done[run.index] = report
        }

        while shown < scripts.count {
            while !stopping, running.count < jobs, next < scripts.count {
                let file = NSTemporaryDirectory() + "fluxsh-test-\(getpid())-\(UUID().uuidString).json"
                do {
                    let process = try TestProcess.spawn(executable, arguments(scripts[next]) + ["--report", file, scripts[next]])
                    running.append(Running(index: next, process: process, reportFile: file))
                } catch {
                    var report = ScriptReport(script: scripts[next])
                    report.failure = "\(error)"
                    done[next] = report
                }
                next += 1
            }
            if running.isEmpty && done[shown] == nil { break } // stopped: the rest never started

            var fds = running.flatMap { $0.process.descriptors }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            fds.append(pollfd(fd: TestSignals.wakeFD, events: Int16(POLLIN), revents: 0))
            _ = poll(&fds, nfds_t(fds.count), 20)
            if fds[fds.count - 1].revents != 0 { TestSignals.takeWakeups() }
            if TestSignals.caught != 0 {
                for run in running { run.process.killGroup() }
                for run in running { run.process.finish(); try? FileManager.default.removeItem(atPath: run.reportFile) }
                TestSignals.resend()
            }
            for run in running { run.process.read() }
            running.removeAll { run in
                if run.process.reap() {
                    finish(run, failure: nil)
                    return true
                }
                if Date().timeIntervalSince(run.process.started) > timeout {
                    finish(run, failure: "timed out after \(ScriptRunner.seconds(timeout)) s (the budget; --timeout sets it)")
                    return true
                }
                return false
            }
            while let report = done[shown] {
                done[shown] = nil
                shown += 1
                if show(report) {
                    kept.append(report)
                    if stopAtFirstFailure && !report.passed { stopping = true }
                }
            }
            if stopping && running.isEmpty && done.isEmpty { break }
        }
        return kept
    }

    private func read(_ file: String) -> ScriptReport? {
        guard let data = FileManager.default.contents(atPath: file), !data.isEmpty else { return nil }
        return try? JSONDecoder().decode(ScriptReport.self, from: data)
    }
}
