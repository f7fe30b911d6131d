import FluxEffects
import FluxLua
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The read-eval-print loop: reads lines through a ``LineEditor``, runs them in a ``Shell``.
///
/// As in the standalone `lua`: an expression prints its value, a chunk that stops before its end
/// continues on the next line (the `_PROMPT2` prompt, `>> `), an error prints with its traceback and the
/// loop goes on. On a terminal Ctrl-C clears the line, or stops the running script with every store
/// intact; Ctrl-D inside an unfinished chunk drops it (reporting it), on an empty line leaves. On piped
/// input there is no prompt: lines run as if typed.
///
/// ```swift
/// let shell = Shell(write: …, writeError: …)
/// let status = REPL(shell: shell, editor: LineEditor()).run()
/// ```
public final class REPL {
    /// The shell the lines run in.
    public let shell: Shell
    /// Where lines come from.
    public let editor: LineEditor
    /// The lines of a chunk not finished yet.
    private var pending = PendingChunk()

    /// A loop reading `editor`'s lines into `shell`; Tab completes through the shell.
    public init(shell: Shell, editor: LineEditor) {
        self.shell = shell
        self.editor = editor
        editor.completionProvider = { [weak shell] line, cursor, word in
            shell?.completions(line: line, cursor: cursor, word: word) ?? .words([])
        }
        // Ctrl-C at the `>>` prompt drops the whole unfinished chunk, not only its last line.
        editor.onInterrupt = { [weak self] in
            guard let self else { return "" }
            pending.clear()
            return shell.prompt(continuation: false)
        }
    }

    /// Reads and runs lines until the input ends or `:quit`.
    ///
    /// - Returns: The exit status: 0, or 1 when piped input had a line that failed.
    public func run() -> Int32 {
        // SIGINT while code runs stops the Lua call in progress; the signal handler may only call
        // async-signal-safe code, which the interrupt is.
        SignalInterrupts.install(interrupt: { LuaVM.interruptAll() })
        defer { SignalInterrupts.uninstall() }
        // Effects' callbacks run while the prompt waits: what they print goes above the line being typed
        // (the line is cleared at their first output, and drawn again after them); what they dispatched is
        // saved with the session. A callback that neither printed nor dispatched costs no redraw, no save.
        let effects = shell.host.effects
        let commits = CommitCounter(shell.host.dispatcher)
        effects.willRunCallback = {
            SignalInterrupts.enterCallback()
        }
        effects.didRunCallback = { [weak shell] in
            SignalInterrupts.leaveCallback()
            if commits.takeChanged() { shell?.acknowledgeEffect() }
            PromptGuard.show()
        }
        defer {
            effects.willRunCallback = nil
            effects.didRunCallback = nil
            effects.endAll() // quitting ends every effect: no child outlives the shell
        }
        var failed = false
        pending.clear()
        reportHistoryError()
        while !shell.isFinished {
            guard let line = editor.readLine(prompt: shell.prompt(continuation: pending.isStarted)) else {
                // Ctrl-D inside an unfinished chunk drops it with its error and prompts again, as `lua` does.
                guard editor.isInteractive, let chunk = pending.text else { break }
                reportUnfinished(chunk)
                pending.clear()
                continue
            }
            pending.append(line, bytes: editor.lastLineBytes)
            guard pending.isWorthCompiling, let input = pending.text else { continue }
            let compiled = shell.compile(input, bytes: pending.bytes)
            if compiled.isIncomplete {
                pending.compiledUnfinished()
                continue
            }
            pending.clear()
            // Saved before it runs: a line that hangs or crashes the shell is the one to find again.
            editor.addHistory(input)
            reportHistoryError()
            failed = !run(compiled) || failed
            _ = SignalInterrupts.takeInterrupt() // a Ctrl-C that stopped this input is spent
        }
        // A chunk the scanner thought unfinished may still compile: the compiler has the last word.
        if let input = pending.text, case let compiled = shell.compile(input, bytes: pending.bytes), !compiled.isIncomplete {
            editor.addHistory(input)
            failed = !run(compiled) || failed
        } else if let pending = pending.text {
            reportUnfinished(pending)
            failed = true
        }
        shell.stopRecording()
        return failed && !editor.isInteractive ? 1 : 0
    }

    /// Reports a chunk the input ended inside of, naming its first line.
    private func reportUnfinished(_ chunk: String) {
        shell.reportError(LuaError(kind: .syntax, message: "stdin: the input ended inside a chunk: \(chunk.split(separator: "\n").first ?? "")…"))
    }

    /// Runs a compiled input; false when it failed (the error has been written).
    private func run(_ compiled: Shell.Compiled) -> Bool {
        switch compiled {
        case .incomplete: return true
        case let .command(text): return shell.runCommand(text)
        case let .chunk(chunk): return shell.run(chunk)
        case let .failed(error):
            shell.reportError(error)
            return false
        }
    }

    /// Reports once why the history file is not being written (on a terminal, where there is one).
    private func reportHistoryError() {
        guard editor.isInteractive, let message = editor.history?.takeUnreportedError() else { return }
        shell.reportMessage(message)
    }
}
