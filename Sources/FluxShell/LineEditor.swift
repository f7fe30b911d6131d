import CFluxLoop
import CReadline
import FluxEffects
import FluxLua
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the shell's input one line at a time: with GNU readline on a terminal, plainly from a
/// pipe or file.
///
/// On a terminal each line is edited with readline (emacs or vi keys, `~/.inputrc` under the
/// name `fluxsh`), with history navigation, Tab completion from ``completionProvider`` and
/// Ctrl-C clearing the line (see ``SignalInterrupts``). Otherwise lines are read as if typed,
/// with no prompt and no echo, so `fluxsh < script` and `printf … | fluxsh` behave like a session.
///
/// ```swift
/// let editor = LineEditor(completion: { line, cursor, word in … })
/// while let line = editor.readLine(prompt: "flux> ") {
///     editor.addHistory(line)
///     run(line)
/// }
/// ```
///
/// Readline's state is global: create one editor reading from a terminal per process, and use it
/// from one thread.
public final class LineEditor {
    /// The characters that end the word Tab completes: whitespace, quotes, operators and brackets.
    ///
    /// `.` and `:` are not among them, so `flux.di` and `:lo` are completed whole, nor are `/`,
    /// `~`, `-` and `_`, so paths are.
    public static let wordBreakCharacters = " \t\n\"'`@$><=;|&{}()[],+*%^#!"

    /// Whether lines are read with readline, with a prompt: the input is a terminal unless the
    /// initializer said otherwise.
    public let isInteractive: Bool
    /// The history lines are added to on a terminal, or nil for none.
    public let history: LineHistory?
    /// What Tab offers; nil offers nothing.
    public var completionProvider: CompletionProvider?
    /// Called when Ctrl-C clears the line on a terminal; returns the prompt to start over with (the
    /// REPL drops an unfinished chunk and goes back to its first prompt). Nil keeps the prompt.
    public var onInterrupt: (() -> String)?

    /// The bytes of the line ``readLine(prompt:)`` returned last, when they were not UTF-8 (the line holds
    /// U+FFFD in their place), typed or piped; nil otherwise. Lua source is bytes: a string
    /// literal keeps them, as `lua5.4 < file` does.
    public private(set) var lastLineBytes: [UInt8]?

    private let input: Int32
    private var piped = PipedInput()

    /// Creates an editor reading from `input`.
    ///
    /// - Parameters:
    ///   - input: The file descriptor lines are read from; standard input by default. It stays open.
    ///   - history: The history of a terminal session, loaded into readline for Up and Down and
    ///     added to by ``addHistory(_:)``; nil for none. Unused when the input is not a terminal.
    ///   - completion: What Tab offers on a terminal.
    ///   - interactive: Whether to edit with readline; nil for whether `input` is a terminal.
    public init(
        input: Int32 = STDIN_FILENO,
        history: LineHistory? = .standard(),
        completion: CompletionProvider? = nil,
        interactive: Bool? = nil
    ) {
        self.input = input
        self.history = history
        self.completionProvider = completion
        self.isInteractive = interactive ?? (isatty(input) == 1)
        if isInteractive {
            Readline.configure(input: input)
            Readline.loadHistory(history)
        }
    }

    /// Reads one line, without its newline.
    ///
    /// On a terminal `prompt` is shown and the line edited until Return; Ctrl-C starts the line
    /// over, and Ctrl-D on an empty line ends the input, moving to a fresh line. Otherwise the
    /// prompt is not shown and the next line of input is returned; SIGINT, when the REPL
    /// installed ``SignalInterrupts``, ends the input.
    ///
    /// A line may hold newlines: a pasted block, or a multi-line entry recalled from history.
    ///
    /// - Parameter prompt: The prompt, e.g. `"flux> "`, or `">> "` for a continuation line.
    ///   Invisible sequences such as colours go between `\u{1}` and `\u{2}`, as readline requires.
    /// - Returns: The line, or nil at the end of the input.
    public func readLine(prompt: String) -> String? {
        isInteractive ? readTerminalLine(prompt: prompt) : readPipedLine()
    }

    /// Adds an entry to the history: a line, or the lines of a multi-line chunk joined with
    /// newlines, recalled as one entry. Blank entries and immediate repeats are skipped, as are
    /// all entries when the input is not a terminal, so running a script leaves no trace.
    public func addHistory(_ entry: String) {
        guard isInteractive, let history, history.add(entry) else { return }
        add_history(entry)
    }

    // MARK: - Terminal

    private func readTerminalLine(prompt: String) -> String? {
        // What the last line printed is out before the next is asked for, also into a pipe or a file
        // (`fluxsh | tee log`), where standard output waits for a full buffer, as lua's print does not.
        fflush(fluxrl_stdout())
        SignalInterrupts.installIfNeeded()
        SignalInterrupts.enter(.editing, terminal: true)
        defer { SignalInterrupts.enter(.running, terminal: true) }
        Readline.prepare(completion: completionProvider)

        Readline.result = nil
        lastLineBytes = nil
        var prompt = prompt
        rl_callback_handler_install(prompt, Readline.lineHandler)
        PromptGuard.isEditing = true
        // An effect's callback may print while the line is edited: print and io.write clear it first.
        LuaOutputHook.set { PromptGuard.hide() }
        defer {
            LuaOutputHook.set(nil)
            PromptGuard.isEditing = false
        }
        while Readline.result == nil {
            if let signal = SignalInterrupts.takeTerminalSignal() {
                Readline.deliver(signal)
            }
            if SignalInterrupts.takeInterrupt() {
                if let onInterrupt { prompt = onInterrupt() }
                Readline.startOver(prompt: prompt)
            }
            if SignalInterrupts.takeResize() {
                rl_resize_terminal()
            }
            switch Poller.wait(for: input) {
            case .readable:
                fluxrl_read_char()
            case .woken:
                continue
            case .closed:
                rl_callback_handler_remove()
                Readline.result = .end
            }
        }
        switch Readline.result {
        case .line(let line, let bytes)?:
            lastLineBytes = bytes
            return line
        case .end?, nil:
            // Readline 8.1 and later end the prompt's line at EOF themselves; older ones leave
            // the cursor after the prompt, where whatever the REPL prints next would land.
            if fluxrl_version() < 0x0801 {
                fputs("\n", Readline.output)
                fflush(Readline.output)
            }
            // The EOF is taken: readline would end every later line with a blank one of its own.
            fluxrl_clear_eof_found()
            return nil
        }
    }

    // MARK: - Pipe or file

    private func readPipedLine() -> String? {
        let signals = SignalInterrupts.isInstalled
        if signals { SignalInterrupts.enter(.editing, terminal: false) }
        defer { if signals { SignalInterrupts.enter(.running, terminal: false) } }
        lastLineBytes = nil
        while true {
            if let bytes = piped.nextLine() {
                if let line = String(validating: bytes, as: UTF8.self) { return line }
                lastLineBytes = Array(bytes)
                return String(decoding: bytes, as: UTF8.self)
            }
            if piped.ended { return nil }
            if signals, SignalInterrupts.interruptPending {
                // Nothing was typed to clear: the interrupt ends the input, and stays pending
                // so the REPL can tell it from the end of the file.
                piped.end()
                return nil
            }
            switch Poller.wait(for: input, wakeable: signals) {
            case .readable: piped.fill(from: input)
            case .woken: continue
            case .closed: piped.end()
            }
        }
    }
}

// MARK: -

/// Lines of piped input, split out of what `read` returned.
private struct PipedInput {
    private var buffer: [UInt8] = []
    /// How much of `buffer` is known to hold no newline: a long line is searched once, not from its
    /// start at every read.
    private var searched = 0
    private(set) var ended = false

    /// The next complete line's bytes (the last one may lack its newline once the input ended), without
    /// its `\n` or `\r\n`; nil when more input is needed or there is none.
    mutating func nextLine() -> [UInt8]? {
        if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = buffer[..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let bytes = Array(line)
            buffer.removeSubrange(...newline)
            searched = 0
            return bytes
        }
        searched = buffer.count
        guard ended, !buffer.isEmpty else { return nil }
        defer { buffer.removeAll(); searched = 0 }
        return buffer
    }

    /// Reads what is available; the end of input, or an error, ends it.
    mutating func fill(from fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            buffer.append(contentsOf: chunk[..<count])
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            ended = true
        }
    }

    /// Ends the input, dropping what is left of it.
    mutating func end() {
        buffer.removeAll()
        searched = 0
        ended = true
    }
}

/// Waiting for input, or for a signal to wake the wait, on the shell's event loop: while it waits, effects'
/// timers fire and processes' output arrives (``PromptGuard`` keeps what they print above the prompt).
private enum Poller {
    enum Outcome { case readable, woken, closed }

    /// What one thread's waits share: the loop is the thread's own (``EventLoop/shared``), so the ids
    /// registered on it and the flags its callbacks set are the thread's own too.
    private final class Flags {
        var inputReady = false
        var wakeReady = false
        var inputID: UInt64 = 0
        var wakeID: UInt64 = 0
    }

    private static func flags(on loop: EventLoop) -> Flags {
        let key = "FluxShell.Poller"
        if let flags = Thread.current.threadDictionary[key] as? Flags { return flags }
        let flags = Flags()
        flags.inputID = loop.register { [flags] _ in flags.inputReady = true }
        flags.wakeID = loop.register { [flags] _ in flags.wakeReady = true }
        Thread.current.threadDictionary[key] = flags
        return flags
    }

    /// Waits until `fd` has input (or reached its end), a signal arrived, or an effect's callback ran.
    ///
    /// - Parameter wakeable: Whether to also wait on the signal handler's self-pipe.
    static func wait(for fd: Int32, wakeable: Bool = true) -> Outcome {
        let loop = EventLoop.shared
        let flags = flags(on: loop)
        flags.inputReady = false
        flags.wakeReady = false
        var error: Int32 = 0
        // A regular file cannot be polled (epoll refuses it), and always has its next bytes ready. The loop
        // keeps one handle per descriptor, started here and stopped at the end: no handle is made or
        // closed per wait.
        guard let input = fluxloop_poll_start(flags.inputID, fd, &error) else {
            return error == -EBADF ? .closed : .readable
        }
        let wake = wakeable ? SignalInterrupts.wakeDescriptor : -1
        let waker = wake >= 0 ? fluxloop_poll_start(flags.wakeID, wake, &error) : nil
        // Without a self-pipe a signal landing just before the wait would wait for the next key.
        let tick = wakeable && waker == nil ? fluxloop_timer_start(flags.wakeID, 100, 0) : nil
        defer {
            fluxloop_poll_stop(input)
            fluxloop_poll_stop(waker)
            fluxloop_timer_close(tick)
        }
        // A round may end with nothing seen: one that only ran effects' callbacks, or closed their handles.
        repeat {
            loop.runOnce()
        } while !flags.inputReady && !flags.wakeReady
        if flags.wakeReady { SignalInterrupts.drainWakeups() }
        return flags.inputReady ? .readable : .woken
    }
}

/// Keeps what effects' callbacks print out of the line being edited: the line is cleared from the screen
/// before a callback's first output and drawn again, as it was, after the callback (as Neovim and IPython
/// do). A callback that prints nothing leaves the line as it is on the screen: a timer firing every second
/// does not redraw the prompt every second.
public enum PromptGuard {
    nonisolated(unsafe) static var isEditing = false
    nonisolated(unsafe) private static var hidden = false

    /// Whether the line is cleared from the screen, to be drawn again by ``show()``.
    static var isHidden: Bool { hidden }

    /// Clears the prompt and the line being typed from the screen, if one is shown: what is about to be
    /// written (the shell's output, Lua's `print` and `io.write`) goes above it.
    public static func hide() {
        guard isEditing, !hidden else { return }
        hidden = true
        rl_clear_visible_line()
        fflush(Readline.output)
    }

    /// Draws the prompt and the line again, on a line of its own, after what was printed meanwhile.
    public static func show() {
        guard hidden else { return }
        hidden = false
        fflush(nil)
        rl_on_new_line()
        rl_redisplay()
    }
}

/// Readline's global state, set up for the editor; touched from the reading thread only.
private enum Readline {
    /// A line, with its bytes when they are not UTF-8 (Lua source is bytes; the text repairs them), or
    /// the end of the input.
    enum Result { case line(String, bytes: [UInt8]?), end }

    /// The outcome of the line being read, set by ``lineHandler``.
    nonisolated(unsafe) static var result: Result?
    nonisolated(unsafe) private static var configured = false
    // Readline keeps these pointers, so they live as long as the process.
    nonisolated(unsafe) private static let name = strdup("fluxsh")
    nonisolated(unsafe) private static let wordBreaks = strdup(LineEditor.wordBreakCharacters)
    nonisolated(unsafe) private static var instream: UnsafeMutablePointer<FILE>?

    /// The callback interface's line handler: readline calls it with the line, or NULL at EOF.
    static let lineHandler: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { line in
        // Removing the handler here keeps readline from printing the prompt again.
        rl_callback_handler_remove()
        if let line {
            let bytes = UnsafeRawBufferPointer(start: line, count: strlen(line))
            if let text = String(validating: bytes, as: UTF8.self) {
                Readline.result = .line(text, bytes: nil)
            } else {
                Readline.result = .line(String(decoding: bytes, as: UTF8.self), bytes: Array(bytes))
            }
            free(line)
        } else {
            Readline.result = .end
        }
    }

    /// Where the prompt and the line being edited go: standard output on a terminal, else standard
    /// error, so that `fluxsh > file` keeps prompts and escapes out of the file.
    static var output: UnsafeMutablePointer<FILE> {
        isatty(STDOUT_FILENO) == 1 ? fluxrl_stdout() : fluxrl_stderr()
    }

    /// One-time settings, before readline first initializes (which reads `~/.inputrc`).
    static func configure(input: Int32) {
        // The last editor made reads; the stream of an earlier one over another descriptor is closed.
        if let previous = instream {
            fluxrl_set_instream(fluxrl_stdin())
            fclose(previous)
        }
        instream = input == STDIN_FILENO ? nil : fdopen(dup(input), "r")
        guard !configured else { return }
        configured = true
        fluxrl_set_readline_name(name)
        // The editor handles signals itself, in its poll loop (SignalInterrupts).
        fluxrl_set_catch_signals(0)
        fluxrl_set_catch_sigwinch(0)
        fluxrl_set_change_environment(0)
        // A Ctrl-C discards what was typed but not read yet: readline's own read would then wait for the
        // next key, the signal unseen.
        fluxrl_use_key_reader()
    }

    /// Replaces readline's history with `history`'s entries, bounded the same way.
    static func loadHistory(_ history: LineHistory?) {
        clear_history()
        guard let history else { return }
        stifle_history(Int32(clamping: history.limit))
        for entry in history.entries { add_history(entry) }
    }

    /// Settings for each line: another editor or the REPL may have changed them in between.
    static func prepare(completion: CompletionProvider?) {
        fluxrl_set_instream(instream ?? fluxrl_stdin())
        fluxrl_set_outstream(output)
        fluxrl_set_completer_word_break_characters(wordBreaks)
        fluxrl_set_attempted_completion_function(CompletionBridge.hook)
        CompletionBridge.provider = completion
        using_history()  // Up starts from the newest entry
        if SignalInterrupts.takeResize() { rl_reset_screen_size() }
    }

    /// Ctrl-C: abandons the line (and any search or numeric argument in progress) and shows the
    /// prompt again on a fresh line, as bash does.
    static func startOver(prompt: String) {
        rl_free_line_state()
        rl_callback_sigcleanup()
        fluxrl_set_point(fluxrl_end())  // so ^C lands after the text, not in its middle
        rl_redisplay()
        rl_echo_signal_char(SIGINT)
        rl_callback_handler_remove()
        fputs("\n", output)
        using_history()
        rl_callback_handler_install(prompt, lineHandler)  // an empty line, the prompt shown
    }

    /// Ctrl-Z, SIGTERM, SIGHUP or SIGQUIT while editing: puts the terminal back, lets the signal
    /// act as it would have, and, if the process carries on (after `fg`), redraws the line.
    static func deliver(_ signal: Int32) {
        rl_cleanup_after_signal()
        // The shell reports a stop on a line of its own, but not the end of the process.
        if signal != SIGTSTP { fputs("\n", output) }
        fflush(output)
        SignalInterrupts.deliverWithPreviousAction(signal)
        rl_reset_after_signal()
        if SignalInterrupts.takeResize() { rl_resize_terminal() }
        rl_forced_update_display()
    }
}
