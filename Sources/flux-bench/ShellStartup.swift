import Glibc

/// Workload 7, start-up: the release `fluxsh` from start to its first prompt, with the shipped features
/// loaded, and its peak memory. `:quit` is piped in, so a run is the whole process: start, prompt, exit.
struct ShellStartup {
    /// One run of the shell.
    struct Run {
        var seconds: Double
        /// The child's peak resident memory, in bytes (`ru_maxrss` from `wait4`).
        var peakBytes: Int
        var status: Int32

        /// How the run failed ("exit status 1", "signal 11"), or nil when the shell exited with 0.
        var failure: String? {
            let signal = status & 0x7f
            if signal != 0 { return "signal \(signal)" }
            let code = (status >> 8) & 0xff
            return code == 0 ? nil : "exit status \(code)"
        }
    }

    /// The `fluxsh` next to this executable (both are built into the same folder), if it is there.
    static func locate() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let executable = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        let path = String(executable[..<slash]) + "/fluxsh"
        return access(path, X_OK) == 0 ? path : nil
    }

    let path: String

    /// Runs the shell once with `:quit` on its input and its output discarded.
    func run() throws -> Run {
        var input: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw BenchmarkFailure("shell: pipe failed") }
        // Written before the start: the pipe holds it, and the clock does not include it.
        let command = ":quit\n"
        _ = command.withCString { write(input[1], $0, strlen($0)) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_addclose(&actions, input[0])
        posix_spawn_file_actions_addclose(&actions, input[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        var arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        defer { for argument in arguments { free(argument) } }

        var pid: pid_t = 0
        var status: Int32 = 0
        var usage = rusage()
        let seconds = try Measure.seconds {
            let error = posix_spawn(&pid, path, &actions, nil, &arguments, environ)
            close(input[0])
            close(input[1])
            guard error == 0 else { throw BenchmarkFailure("shell: cannot start \(path): \(String(cString: strerror(error)))") }
            while wait4(pid, &status, 0, &usage) < 0 {
                guard errno == EINTR else { throw BenchmarkFailure("shell: wait4 failed") }
            }
        }
        return Run(seconds: seconds, peakBytes: usage.ru_maxrss * 1024, status: status)
    }
}

extension ShellStartup {
    /// Workload 7's shell figures: start to first prompt, and peak memory; "fluxsh not built" without it.
    static func figures(_ options: Options) throws -> [Figure] {
        let workload = "7 fluxsh"
        guard let path = locate() else {
            return [Figure(workload: workload, name: "start to first prompt", samples: Samples(), unit: "ms",
                           notes: "fluxsh not built (build the fluxsh product next to flux-bench)")]
        }
        progress("shell: \(options.shellRuns) runs of \(path)")
        let shell = ShellStartup(path: path)
        _ = try shell.run() // the first run pays for reading the binary from disk
        var times = Samples(), peaks = Samples()
        var failures: Set<String> = []
        for _ in 0 ..< options.shellRuns {
            let run = try shell.run()
            times.add(run.seconds * 1000)
            peaks.add(Double(run.peakBytes) / mebibyte)
            if let failure = run.failure { failures.insert(failure) }
        }
        return [
            Figure(workload: workload, name: "start to first prompt", samples: times, unit: "ms",
                   notes: "whole run, `:quit` piped in" + failures.sorted().map { "; \($0)" }.joined()),
            Figure(workload: workload, name: "peak memory", samples: peaks, unit: "MiB", notes: "ru_maxrss of the child"),
        ]
    }
}
