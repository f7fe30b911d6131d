import CReadline
import FluxEffects
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What Ctrl-C (SIGINT) does in the shell, in two phases.
///
/// - term Editing: ``LineEditor/readLine(prompt:)`` is waiting for input. On a terminal, SIGINT
///   clears the line being typed and shows a fresh prompt; on piped input it ends the input.
///   While a terminal line is edited, SIGTSTP (Ctrl-Z), SIGTERM, SIGHUP and SIGQUIT are caught too,
///   so the terminal is restored before the process stops or ends.
/// - term Running: any other time, while the REPL runs code. SIGINT calls the interrupt
///   function given to ``install(interrupt:)`` — the Lua VM's async-signal-safe function that
///   makes the running script stop — and is remembered for ``takeInterrupt()``. A second SIGINT
///   before the first was taken restores the default action and ends the process, as lua.c does,
///   so a script stuck outside the VM can still be stopped.
///
/// The line editor switches phases itself: `readLine(prompt:)` runs in the editing phase and
/// returns in the running phase. On a terminal it installs the handler on first use; on piped
/// input SIGINT keeps its default action unless the REPL calls ``install(interrupt:)``.
///
/// The handler itself is C (in CReadline, signal_flags.c): it only sets `sig_atomic_t` flags, calls the
/// interrupt function and writes a byte to a self-pipe that wakes the editor's `poll()`. Every
/// decision is made later, in the editor's loop, outside the handler.
public enum SignalInterrupts {
    /// What a SIGINT means at the moment; see ``SignalInterrupts``.
    public enum Phase: Sendable, Equatable {
        /// A line is being read: SIGINT clears it (terminal) or ends the input (pipe).
        case editing
        /// Code is running: SIGINT calls the interrupt function.
        case running
    }

    /// A function called from the signal handler for SIGINT in the running phase.
    ///
    /// It runs inside a signal handler, so it must be async-signal-safe: set a
    /// `volatile sig_atomic_t` flag and return.
    public typealias InterruptFunction = @convention(c) () -> Void

    // Readline is single-threaded and so is the shell's main loop: this state is only touched
    // from the thread that reads lines.
    nonisolated(unsafe) private static var installed = false
    nonisolated(unsafe) private static var catchingTerminalSignals = false

    /// The signals caught only while a terminal line is edited, to restore the terminal first.
    private static let terminalSignals: [Int32] = [SIGTSTP, SIGTERM, SIGHUP, SIGQUIT]

    /// Whether the SIGINT and SIGWINCH handler is installed.
    public static var isInstalled: Bool { installed }

    /// The current phase.
    public static var phase: Phase {
        fluxrl_signal_phase() == FLUXRL_EDITING ? .editing : .running
    }

    /// Installs the handler for SIGINT and SIGWINCH, in the running phase.
    ///
    /// Calling it again replaces the interrupt function.
    ///
    /// - Parameter interrupt: Called from the handler for SIGINT in the running phase; nil to
    ///   only remember the interrupt for ``takeInterrupt()``.
    public static func install(interrupt: InterruptFunction? = nil) {
        fluxrl_signal_set_interrupt_function(interrupt)
        guard !installed else { return }
        // Without the pipe, poll() still returns on EINTR; the editor then also polls with a
        // timeout so a signal landing just before poll() is noticed soon after.
        _ = fluxrl_signal_open_wake_pipe()
        fluxrl_signal_set_phase(FLUXRL_RUNNING)
        // Caught even when ignored, as readline does: Ctrl-C must reach the editor.
        _ = fluxrl_signal_catch(SIGINT, 0)
        _ = fluxrl_signal_catch(SIGWINCH, 0)
        installed = true
    }

    /// Restores the actions SIGINT and SIGWINCH had before ``install(interrupt:)``.
    public static func uninstall() {
        guard installed else { return }
        enter(.running, terminal: false)
        fluxrl_signal_release(SIGINT)
        fluxrl_signal_release(SIGWINCH)
        fluxrl_signal_set_interrupt_function(nil)
        _ = fluxrl_signal_take_interrupt()
        installed = false
    }

    /// Runs `body` during which Ctrl-C, however often, never ends the process: each one still calls the
    /// interrupt function and is remembered. For work that must finish once stopped (an interrupted
    /// `:replay` putting every store back).
    public static func patiently<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        fluxrl_signal_set_patient(1)
        defer { fluxrl_signal_set_patient(0) }
        return try body()
    }

    /// Whether a SIGINT arrived since the last call or the last line read; clears it.
    ///
    /// The REPL calls it after running code to tell an interrupted run from a failed one, and
    /// after `readLine(prompt:)` returned nil to tell Ctrl-C on piped input from its end.
    public static func takeInterrupt() -> Bool {
        fluxrl_signal_take_interrupt() != 0
    }

    // MARK: - For the line editor

    /// Installs the handler with no interrupt function unless the REPL installed it already.
    static func installIfNeeded() {
        if !installed { install(interrupt: nil) }
    }

    /// Whether a SIGINT arrived and was not taken yet, leaving it for ``takeInterrupt()``.
    static var interruptPending: Bool { fluxrl_signal_interrupt_pending() != 0 }

    /// Switches phase; entering the editing phase forgets interrupts meant for the code that ran.
    ///
    /// - Parameter terminal: Whether a terminal line is edited, which also catches
    ///   ``terminalSignals`` until the running phase.
    static func enter(_ phase: Phase, terminal: Bool) {
        switch phase {
        case .editing:
            _ = fluxrl_signal_take_interrupt()
            fluxrl_signal_set_phase(FLUXRL_EDITING)
            if terminal, !catchingTerminalSignals {
                for signal in terminalSignals { _ = fluxrl_signal_catch(signal, 1) }
                catchingTerminalSignals = true
            }
        case .running:
            if catchingTerminalSignals {
                for signal in terminalSignals { fluxrl_signal_release(signal) }
                catchingTerminalSignals = false
                _ = fluxrl_signal_take_other()
            }
            fluxrl_signal_set_phase(FLUXRL_RUNNING)
        }
    }

    nonisolated(unsafe) private static var callbackFromEditing = false

    /// An effect's callback starts while a line is edited: Ctrl-C now stops the callback, as it stops
    /// code typed at the prompt.
    static func enterCallback() {
        // A Ctrl-C not taken yet is the line's: it clears the line once the callback is done.
        guard installed, phase == .editing, !interruptPending else { return }
        callbackFromEditing = true
        fluxrl_signal_set_phase(FLUXRL_RUNNING)
    }

    /// The callback ended: a Ctrl-C that stopped it is spent, and the line is edited again.
    static func leaveCallback() {
        guard callbackFromEditing else { return }
        callbackFromEditing = false
        _ = fluxrl_signal_take_interrupt()
        fluxrl_signal_set_phase(FLUXRL_EDITING)
    }

    /// The read end of the self-pipe the handler writes to, or -1 when it could not be made.
    static var wakeDescriptor: Int32 { fluxrl_signal_wake_fd() }

    /// Runs `body` with every signal the handler catches also waking `loop`: a loop waiting on no
    /// descriptor (timers only) hears Ctrl-C at once, also one that lands just before its wait.
    static func waking<T>(_ loop: EventLoop, _ body: () -> T) -> T {
        let wake = loop.wakeFunction
        fluxrl_signal_set_wake_function(wake.function, wake.context)
        defer { fluxrl_signal_set_wake_function(nil, nil) }
        return body()
    }

    /// Empties the self-pipe once `poll()` found it readable.
    static func drainWakeups() { fluxrl_signal_drain_wake_pipe() }

    /// Whether the window size changed since the last call; clears it.
    static func takeResize() -> Bool { fluxrl_signal_take_resize() != 0 }

    /// A terminal signal (SIGTSTP, SIGTERM, SIGHUP, SIGQUIT) caught while editing, or nil; clears it.
    static func takeTerminalSignal() -> Int32? {
        let signal = fluxrl_signal_take_other()
        return signal == 0 ? nil : signal
    }

    /// Delivers `signal` with the action it had before the editor caught it — stopping for
    /// SIGTSTP, ending the process for the others by default — then catches it again if the
    /// process is still here. The caller has put the terminal back first.
    static func deliverWithPreviousAction(_ signal: Int32) {
        guard catchingTerminalSignals else { return }
        fluxrl_signal_release(signal)
        fluxrl_signal_raise_here(signal)
        _ = fluxrl_signal_catch(signal, 1)
    }
}
