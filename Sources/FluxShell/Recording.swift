import Flux
import Foundation

/// An action log `:record` is writing: its file, and the recorder that writes every settled commit of the
/// dispatcher to it. A write that fails stops the recording by itself; the stores stay as they are.
final class Recording {
    /// Where the log goes.
    let path: String
    private let file: FileWriter
    private var recorder: ActionRecorder!
    /// Told, with the message, when a write failed and the recording stopped.
    private let onFailure: (String) -> Void

    /// How many entries were written.
    var count: Int { recorder.count }

    /// Opens `path` as `mode` says and records `dispatcher`'s actions to it from now on.
    ///
    /// - Throws: ``ShellCommandError/failed(_:)`` saying why the file cannot be written.
    init(path: String, mode: FileWriter.Mode, dispatcher: Dispatcher, onFailure: @escaping (String) -> Void) throws {
        do {
            file = try FileWriter(path: path, mode: mode)
        } catch let error as FileError where error.code == EEXIST {
            throw ShellCommandError.failed(
                "\(path) is not empty: :record! \(path) replaces it, :record+ \(path) appends to it")
        } catch {
            throw ShellCommandError.failed("\(error)")
        }
        self.path = path
        self.onFailure = onFailure
        recorder = ActionRecorder(recording: dispatcher) { [weak self] line in self?.write(line) }
    }

    /// Stops recording and closes the file (a `:record!` file replaces the one at its path now).
    ///
    /// - Returns: Why the log could not be finished, or nil.
    func stop() -> String? {
        detach()
        do {
            try file.close()
            return nil
        } catch {
            return "\(error): the log of \(count) entries was not saved"
        }
    }

    /// Writes one log line; a write that fails gives the file up and stops the recording.
    private func write(_ line: String) {
        do {
            try file.write(line + "\n")
        } catch {
            let entry = count
            file.discard()
            detach()
            let kept = file.mode == .replace ? "\(path) is as it was"
                : "\(path) keeps the \(entry - 1) entr\(entry == 2 ? "y" : "ies") before it"
            onFailure("\(error): entry \(entry) was not recorded (\(line.prefix(80))); recording stopped, \(kept)")
        }
    }

    private func detach() {
        recorder.stop()
    }
}
