import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One test script's child process: a process group of its own, so that a timeout, Ctrl-C or SIGTERM
/// to the runner ends it and every process it started (`os.execute("sleep 60")`) together; its output
/// kept in pipes, so that scripts running in parallel print in a stable order.
final class TestProcess {
    let pid: pid_t
    private(set) var output = Data()
    private(set) var errors = Data()
    /// The wait status once it ended.
    private(set) var status: Int32?
    let started = Date()
    private var outputFD: Int32
    private var errorFD: Int32

    private init(pid: pid_t, outputFD: Int32, errorFD: Int32) {
        self.pid = pid
        self.outputFD = outputFD
        self.errorFD = errorFD
    }

    deinit {
        if outputFD >= 0 { close(outputFD) }
        if errorFD >= 0 { close(errorFD) }
    }

    /// Starts `executable arguments` in a new process group, standard input from /dev/null.
    static func spawn(_ executable: String, _ arguments: [String]) throws -> TestProcess {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw SpecHookError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        for fd in [out[0], err[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        defer { close(out[1]); close(err[1]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own group (so the group can be killed), with the signals a runner catches at their defaults.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // No signal blocked: the script's shell hears Ctrl-C and SIGTERM whatever thread started the runner.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], environ)
        guard result == 0 else {
            close(out[0]); close(err[0])
            throw SpecHookError("could not start \(executable): \(String(cString: strerror(result)))")
        }
        return TestProcess(pid: pid, outputFD: out[0], errorFD: err[0])
    }

    /// The pipes still open, for `poll`.
    var descriptors: [Int32] { [outputFD, errorFD].filter { $0 >= 0 } }

    /// Reads what is waiting in the pipes; closes one at its end.
    func read() {
        func drain(_ fd: inout Int32, into data: inout Data) {
            guard fd >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = Glibc.read(fd, &buffer, buffer.count)
                if count > 0 { data.append(contentsOf: buffer[0..<count]); continue }
                if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
                close(fd)
                fd = -1
                return
            }
        }
        drain(&outputFD, into: &output)
        drain(&errorFD, into: &errors)
    }

    /// Whether it ended (reaping it).
    func reap() -> Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        guard result == pid else { return false }
        status = raw
        return true
    }

    /// Ends its whole process group: it and everything it started.
    func killGroup() {
        kill(-pid, SIGKILL)
    }

    /// Kills the group, waits for it and reads the rest of its output (the group gone, nothing holds the
    /// pipes open).
    func finish() {
        killGroup()
        if status == nil {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
        let deadline = Date().addingTimeInterval(2)
        while !descriptors.isEmpty && Date() < deadline {
            read()
            if !descriptors.isEmpty { usleep(2_000) }
        }
    }

    /// The signal that ended it, if one did.
    var signal: Int32? {
        guard let status, status & 0x7f != 0, status & 0x7f != 0x7f else { return nil }
        return status & 0x7f
    }

    /// Its exit status, if it exited.
    var exitStatus: Int32? {
        guard let status, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }
}

/// SIGINT, SIGTERM and SIGHUP caught while test processes run: the runner ends their groups first, then
/// ends as the signal asked.
enum TestSignals {
    nonisolated(unsafe) private static var pipeFDs: [Int32] = [-1, -1]
    nonisolated(unsafe) static var caught: sig_atomic_t = 0
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// The descriptor that becomes readable when a signal is caught.
    static var wakeFD: Int32 { pipeFDs[0] }

    static func install() {
        if pipeFDs[0] < 0, pipe(&pipeFDs) == 0 {
            for fd in pipeFDs {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeWrite = pipeFDs[1]
        for signal in signals { _ = Glibc.signal(signal, testSignalHandler) }
        // A blocked mask is inherited across exec: a runner started from a thread that blocks these (as
        // thread pools do) would otherwise hear them only after its scripts ended, at their timeout.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in signals { sigaddset(&unblock, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Reads what the handler wrote to the pipe: each byte is the number of a signal it caught. The
    /// signal is taken from the pipe the kernel filled, not only from the flag, so that an optimized
    /// build cannot read a stale flag while the loop polls.
    static func takeWakeups() {
        var bytes = [UInt8](repeating: 0, count: 16)
        while true {
            let count = read(pipeFDs[0], &bytes, bytes.count)
            guard count > 0 else { return }
            if let signal = bytes[..<count].last(where: { $0 != 0 }) { caught = sig_atomic_t(signal) }
        }
    }

    static func uninstall() {
        for signal in signals { _ = Glibc.signal(signal, SIG_DFL) }
    }

    /// Ends this process as the caught signal would have.
    static func resend() -> Never {
        let signal = Int32(caught)
        uninstall()
        raise(signal)
        exit(128 + signal)
    }
}

nonisolated(unsafe) private var wakeWrite: Int32 = -1

/// Async-signal-safe: a flag and a byte to wake `poll`.
private func testSignalHandler(_ signal: Int32) {
    TestSignals.caught = signal
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(wakeWrite, &byte, 1)
}
