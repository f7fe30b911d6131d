import Flux
import FluxLua
import Foundation

extension Shell {
    /// `:record file` (and `:record!`, `:record+`) starts a recording; `:record` alone stops it.
    func record(_ arguments: CommandArguments, mode: FileWriter.Mode) throws {
        guard !arguments.words.isEmpty else {
            guard mode == .new, let recording else { throw arguments.usage }
            guard let error = stopRecording(reporting: false) else {
                return print("recorded \(recording.count) entries to \(recording.path)")
            }
            throw ShellCommandError.failed(error)
        }
        let path = try arguments.path()
        if let recording {
            throw ShellCommandError.failed("already recording to \(recording.path) (:record alone stops)")
        }
        recording = try Recording(path: path, mode: mode, dispatcher: dispatcher) { [weak self] message in
            guard let self else { return }
            recording = nil
            reportMessage(message)
        }
        print("recording to \(path) (:record alone stops)")
    }

    /// Stops `:record`, closing its file.
    ///
    /// - Parameter reporting: Whether to write a failure as an error, else only return it.
    /// - Returns: Why the log could not be finished, or nil.
    @discardableResult
    func stopRecording(reporting: Bool = true) -> String? {
        guard let recording else { return nil }
        self.recording = nil
        let error = recording.stop()
        if reporting, let error { reportMessage(error) }
        return error
    }

    /// `:replay file`: all of the log, or nothing of it, read a buffer at a time (memory flat in its length).
    func replay(_ path: String) throws {
        let log: ActionLogFile
        do {
            log = try ActionLogFile(path: path)
        } catch {
            throw ShellCommandError.failed(error.message)
        }
        let progress = ProgressLine(label: "replaying \(path):")
        defer { progress.finish() }
        let interrupted = { SignalInterrupts.interruptPending }
        do {
            // All or nothing: a line the stores refuse, or Ctrl-C between entries (or in a Lua handler),
            // puts every store and the undo history back, and the journal, a recording and the devtools
            // forget what they heard of it.
            // Patient: Ctrl-C again while the stores are put back must not end the shell halfway.
            let count = try SignalInterrupts.patiently { () throws(ReplayError) -> Int in
                try ActionReplayer(dispatcher: dispatcher, decode: host.logDecoder)
                    .replay(file: log, progress: progress.update, shouldStop: interrupted)
            }
            progress.finish()
            print("replayed \(count) entr\(count == 1 ? "y" : "ies") from \(path)")
        } catch {
            progress.finish()
            if interrupted() || error.isStopped {
                throw ShellCommandError.failed("interrupted: nothing of \(path) was applied")
            }
            // Said on the error's first line, which names the entry that failed: the stores are as before.
            var lines = "\(path): \(error)".split(separator: "\n", omittingEmptySubsequences: false)
            lines[0] += "; nothing of it was applied"
            throw ShellCommandError.failed(lines.joined(separator: "\n"))
        }
    }
}
