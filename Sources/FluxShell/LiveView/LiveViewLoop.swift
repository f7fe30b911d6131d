import FluxTable
import FluxViews
#if canImport(Glibc)
import Glibc
#endif

/// The write end of the pipe that wakes a live view's loop; written by the signal handler, which may
/// touch nothing else.
nonisolated(unsafe) private var wakeWriteDescriptor: Int32 = -1

/// Writes the signal's number to the wake pipe: async-signal-safe (a `write` and `errno`).
private let wakeOnSignal: @convention(c) (Int32) -> Void = { signal in
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(wakeWriteDescriptor, &byte, 1)
    errno = savedErrno
}

/// Runs a ``LiveScreen`` on a terminal until it is left: reads keys with poll(2), redraws what changed,
/// follows the terminal's size, and restores the terminal on every way out — q, Esc, Ctrl-C, an error,
/// SIGTERM and SIGHUP (then ended as they would have), Ctrl-Z (suspended, redrawn on `fg`).
///
/// The loop is one small interface — ``inputDescriptor`` and ``wakeDescriptor`` to wait on,
/// ``handleInput()``, ``handleWake()`` and ``redraw()`` — so that a shell's own event loop can drive it
/// instead of ``run()``. A store change anywhere (a timer, another view) writes to the wake pipe.
final class LiveViewLoop {
    let screen: LiveScreen
    let terminal: LiveTerminal
    private var painter: ScreenPainter
    private var decoder: KeyDecoder
    private var pipe: [Int32] = [-1, -1]
    private var previousActions: [Int32: sigaction] = [:]
    /// A signal that ended the view and must be delivered once the terminal is restored.
    private(set) var pendingSignal: Int32?
    /// The bytes written to the terminal so far, for benchmarks and tests.
    private(set) var bytesWritten = 0

    /// The signals caught while a view is open.
    static let signals: [Int32] = [SIGWINCH, SIGTERM, SIGHUP, SIGCONT, SIGTSTP, SIGINT, SIGQUIT]
    /// How long a lone Esc waits for the rest of a sequence, in milliseconds.
    static let escapeDelay: Int32 = 40

    init(screen: LiveScreen, terminal: LiveTerminal) {
        self.screen = screen
        self.terminal = terminal
        painter = ScreenPainter(sequences: terminal.capabilities.sequences)
        decoder = KeyDecoder(keys: terminal.capabilities.keys)
    }

    /// The terminal's input, to wait on for keys.
    var inputDescriptor: Int32 { terminal.input }
    /// The pipe signals and store changes write to, to wait on for a redraw.
    var wakeDescriptor: Int32 { pipe[0] }

    /// Opens the view on the terminal, runs it until it is left, and restores the terminal.
    func run() throws {
        try start()
        defer { stop() }
        while !screen.isFinished && pendingSignal == nil {
            var descriptors = [
                pollfd(fd: inputDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, decoder.isWaiting ? Self.escapeDelay : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 {
                for key in decoder.flush() { press(key) }
            }
            if descriptors[1].revents != 0 { handleWake() }
            if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { handleInput() }
            redraw()
        }
    }

    /// Catches the signals, enters the terminal, draws the whole screen.
    func start() throws {
        guard Glibc.pipe(&pipe) == 0 else { throw LiveTerminalError.notATerminal }
        for descriptor in pipe {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        wakeWriteDescriptor = pipe[1]
        let wake = pipe[1]
        screen.onChange = {
            var byte: UInt8 = 0
            _ = write(wake, &byte, 1)
        }
        for signal in Self.signals { catchSignal(signal) }
        do {
            try terminal.enter()
        } catch {
            stop()
            throw error
        }
        resize()
        redraw()
    }

    /// Restores the terminal and the signals' actions, then delivers a signal that ended the view.
    func stop() {
        terminal.leave()
        screen.onChange = nil
        for (signal, action) in previousActions {
            var action = action
            sigaction(signal, &action, nil)
        }
        previousActions = [:]
        wakeWriteDescriptor = -1
        for descriptor in pipe where descriptor >= 0 { close(descriptor) }
        pipe = [-1, -1]
        if let signal = pendingSignal, signal != SIGINT {
            // Ended as it would have been without the view, now that the terminal is the user's again.
            raise(signal)
        }
    }

    private func catchSignal(_ signal: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = wakeOnSignal
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var previous = sigaction()
        guard sigaction(signal, &action, &previous) == 0 else { return }
        previousActions[signal] = previous
    }

    /// Reads the keys waiting and handles them.
    func handleInput() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(inputDescriptor, &buffer, buffer.count)
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) {
            screen.close() // the terminal went away
            return
        }
        guard count > 0 else { return }
        for key in decoder.feed(buffer[..<count]) { press(key) }
    }

    private func press(_ key: LiveKey) {
        if key == .control("z") {
            suspend()
        } else {
            screen.press(key)
        }
    }

    /// Handles what woke the loop: signals by number, store changes (0) by redrawing.
    func handleWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(wakeDescriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                switch Int32(byte) {
                case SIGWINCH: resize()
                case SIGTERM, SIGHUP, SIGQUIT: pendingSignal = Int32(byte)
                case SIGINT: screen.close()
                case SIGTSTP: suspend()
                case SIGCONT:
                    try? terminal.enter()
                    painter.invalidate()
                default: break
                }
            }
        }
        screen.closeVanishedViews()
    }

    /// Ctrl-Z: the user's screen back, stopped as any program is; on `fg`, the view again, redrawn whole.
    private func suspend() {
        terminal.leave()
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&action.sa_mask)
        sigaction(SIGTSTP, &action, nil)
        raise(SIGTSTP)
        // Continued.
        catchSignalAgain(SIGTSTP)
        try? terminal.enter()
        resize()
        painter.invalidate()
    }

    private func catchSignalAgain(_ signal: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = wakeOnSignal
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(signal, &action, nil)
    }

    private func resize() {
        let size = terminal.size
        if size.width != screen.width || size.height != screen.height {
            screen.resize(width: size.width, height: size.height)
        }
    }

    /// Draws what changed since the last draw.
    func redraw() {
        guard terminal.isEntered, !screen.isFinished else { return }
        let bytes = painter.paint(screen.lines(), width: screen.width, height: screen.height)
        bytesWritten += bytes.count
        terminal.write(bytes)
    }
}
