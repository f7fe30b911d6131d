import Glibc

/// Workload 7, start-up: the release `fluxsh` from start to its first prompt, with the shipped features
/// loaded, and its peak memory. `:stores` and `:quit` are piped in, so a run is the whole process: start,
/// the first command read, exit.
struct ShellStartup {
    /// One run of the shell.
    struct Run {
        var seconds: Double
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

    /// Runs the shell once, with `extra` arguments, `input` (`:stores` and `:quit` by default) on its
    /// input and its output (standard output and error) written to `output`.
    func run(input: String = ":stores\n:quit\n", output: String = "/dev/null", arguments extra: [String] = []) throws -> Run {
        // Written to a file before the start: the clock does not include it, and no pipe fills up.
        let inputFile = try Self.temporaryFile()
        defer { unlink(inputFile) }
        guard let stream = fopen(inputFile, "w") else { throw BenchmarkFailure("shell: cannot write \(inputFile)") }
        let written = fputs(input, stream) >= 0
        guard fclose(stream) == 0, written else { throw BenchmarkFailure("shell: cannot write \(inputFile)") }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputFile, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_TRUNC, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path)] + extra.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }

        var pid: pid_t = 0
        var status: Int32 = 0
        let seconds = try Measure.seconds {
            let error = posix_spawn(&pid, path, &actions, nil, &arguments, environ)
            guard error == 0 else { throw BenchmarkFailure("shell: cannot start \(path): \(String(cString: strerror(error)))") }
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else { throw BenchmarkFailure("shell: waitpid failed") }
            }
        }
        return Run(seconds: seconds, status: status)
    }

    /// The shell's peak resident memory in bytes (VmHWM), sampled from /proc while it runs; nil when it
    /// ended before a sample.
    ///
    /// Not `ru_maxrss`: posix_spawn starts the child on this process's memory (vfork), and the kernel
    /// keeps that memory's peak in the child's `ru_maxrss` across exec, so a 1 MiB program would show
    /// this benchmark's 19 MiB. VmHWM belongs to the program's own memory. `:quit` is sent once the
    /// shell waits at its prompt (asleep, its peak unchanged for 50 ms), so start-up is all sampled.
    func peakMemory() throws -> Int? {
        var input: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw BenchmarkFailure("shell: pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_addclose(&actions, input[0])
        posix_spawn_file_actions_addclose(&actions, input[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        defer { for argument in arguments { free(argument) } }

        var pid: pid_t = 0
        let error = posix_spawn(&pid, path, &actions, nil, &arguments, environ)
        close(input[0])
        guard error == 0 else {
            close(input[1])
            throw BenchmarkFailure("shell: cannot start \(path): \(String(cString: strerror(error)))")
        }
        let clock = ContinuousClock()
        let start = clock.now
        var peak: Int?
        var lastRise = start
        var inputOpen = true
        var status: Int32 = 0
        while true {
            let ended = waitpid(pid, &status, WNOHANG)
            if ended == pid || (ended < 0 && errno != EINTR) { break }
            if let (bytes, asleep) = Self.sample(pid) {
                if bytes > (peak ?? 0) {
                    peak = bytes
                    lastRise = clock.now
                }
                let quiet = clock.now - lastRise > .milliseconds(50)
                if inputOpen, quiet && asleep || clock.now - start > .seconds(10) {
                    let command = ":quit\n"
                    _ = command.withCString { write(input[1], $0, strlen($0)) }
                    close(input[1])
                    inputOpen = false
                }
            }
            usleep(200)
        }
        if inputOpen { close(input[1]) }
        return peak
    }

    /// A new empty file in /tmp.
    private static func temporaryFile() throws -> String {
        var template = Array("/tmp/flux-bench-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw BenchmarkFailure("shell: cannot create a temporary file") }
        close(descriptor)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The peak resident memory (VmHWM) of process `pid` in bytes, and whether it is asleep.
    private static func sample(_ pid: pid_t) -> (bytes: Int, asleep: Bool)? {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        var bytes: Int?
        var asleep = false
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if line.hasPrefix("State:") { asleep = line.contains("S (sleeping)") }
            if line.hasPrefix("VmHWM:"), let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
                bytes = kib * 1024
            }
        }
        return bytes.map { ($0, asleep) }
    }

    /// What one run prints: a shell whose `:stores` lists no shipped feature is not the finished
    /// shell, and its figures would mislead.
    func printed() throws -> String {
        let file = try Self.temporaryFile()
        defer { unlink(file) }
        _ = try run(output: file)
        guard let stream = fopen(file, "r") else { return "" }
        defer { fclose(stream) }
        var text = ""
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), stream) != nil {
            text += line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        return text
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
        // The first run, untimed, pays for reading the binary from disk.
        let printed = try shell.printed()
        var times = Samples(), peaks = Samples()
        var failures: Set<String> = []
        for _ in 0 ..< options.shellRuns {
            let run = try shell.run()
            times.add(run.seconds * 1000)
            if let failure = run.failure { failures.insert(failure) }
        }
        // A pasted chunk: read and compiled in time linear in its length (target: under 2 s).
        let chunk = "t = {\n" + String(repeating: "  1,\n", count: 100_000) + "}\n:quit\n"
        var chunks = Samples()
        for _ in 0 ..< 3 {
            let run = try shell.run(input: chunk)
            chunks.add(run.seconds * 1000)
            if let failure = run.failure { failures.insert(failure) }
        }
        // Separate runs: sampling /proc would slow the timed ones.
        for _ in 0 ..< 3 {
            if let bytes = try shell.peakMemory() { peaks.add(Double(bytes) / mebibyte) }
        }
        return [
            Figure(workload: workload, name: "start to first prompt", samples: times, unit: "ms",
                   notes: "whole run, `:stores` and `:quit` piped in" + failures.sorted().map { "; \($0)" }.joined()
                       + (printed.contains("ticTacToe") ? "" : "; `:stores` listed no shipped feature: \(printed.prefix(60).debugDescription)")),
            Figure(workload: workload, name: "a 100,000-line chunk", samples: chunks, unit: "ms",
                   notes: "whole run, the chunk piped in; 3 runs, target < 2000"),
            Figure(workload: workload, name: "peak memory", samples: peaks, unit: "MiB",
                   notes: peaks.isEmpty ? "ended before it could be sampled" : "VmHWM of the shell, 3 runs"),
        ]
    }
}
