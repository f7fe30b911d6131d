import Flux
import FluxSession
import FluxTable
import Foundation

extension Shell {
    /// The session, or an error saying how to start one.
    func requireSession() throws -> Session {
        guard let session else {
            throw ShellCommandError.failed("no session is kept (start fluxsh with --session NAME, or without --no-session)")
        }
        return session
    }

    /// How many journal entries `:session compact` keeps when not told.
    static let compactionKeeps = 1_000

    /// `:session`, or `:session compact [keep]`.
    func runSession(_ arguments: CommandArguments) throws {
        switch arguments.words.first {
        case nil: try showSession()
        case "compact" where arguments.words.count <= 2:
            let keep = try arguments.words.dropFirst().first.map { word in
                guard let keep = Int(word), keep >= 0 else {
                    throw ShellCommandError.failed("'\(word)' is not a count: :session compact 1000 keeps the journal's last 1,000 entries, :session compact 0 none")
                }
                return keep
            } ?? Self.compactionKeeps
            try compactSession(keeping: keep)
        case "stale" where arguments.words.count == 1: try listStaleStates()
        case "restore-store" where arguments.words.count == 2: try restoreStaleState(of: arguments.words[1])
        case "drop-stale" where arguments.words.count == 2: try dropStaleStates(of: arguments.words[1])
        default: throw arguments.usage
        }
    }

    private func showSession() throws {
        let session = try requireSession()
        let summary = try session.summary()
        let start = summary.firstEntry > 1 ? " (from entry \(summary.firstEntry); older ones compacted)" : ""
        print("""
            session  \(session.name)
            file     \(session.path)
            journal  \(summary.journalLength) action\(summary.journalLength == 1 ? "" : "s") and steps in \(summary.journalRows) row\(summary.journalRows == 1 ? "" : "s"), \(Self.size(summary.bytes)) on disk\(start)
            """)
    }

    private func compactSession(keeping keep: Int) throws {
        let session = try requireSession()
        let done: Compaction
        do {
            done = try session.compact(keeping: keep)
        } catch let error as SessionError {
            throw ShellCommandError.failed(error.description)
        }
        let kept = done.kept == 0 ? "journal empty (the next entry is \(done.journalLength + 1))"
            : "journal \(done.kept) entr\(done.kept == 1 ? "y" : "ies") (\(done.firstEntry)-\(done.journalLength))"
        print("compacted: dropped \(done.dropped) entr\(done.dropped == 1 ? "y" : "ies"), \(kept), file \(Self.size(done.bytesBefore)) → \(Self.size(done.bytesAfter))")
    }

    /// `:export file [from-to]`.
    func export(to path: String, range text: String?) throws {
        let session = try requireSession()
        let length = session.journalLength
        var range = session.firstNumber ... max(session.firstNumber, length)
        if let text {
            let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let from = Int(bounds[0]), let to = Int(bounds[1]), from >= 1, from <= to else {
                throw ShellCommandError.failed("a range is FROM-TO, two action numbers from 1 (the journal holds \(session.firstNumber)-\(length))")
            }
            // A range wholly past the end holds nothing: refused rather than written as an empty log.
            guard from <= length else {
                throw ShellCommandError.failed("no entries \(text): "
                    + (length < session.firstNumber ? "the journal is empty" : "the journal holds \(session.firstNumber)-\(length)")
                    + "; nothing was exported")
            }
            range = from ... to
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ShellCommandError.failed("\(path) exists: :export does not overwrite a file")
        }
        // Streamed, a row at a time, into a file beside the target renamed over it once whole: a full
        // disk, or a damaged row found on the way, leaves no file behind.
        let log: FileWriter
        do {
            log = try FileWriter(path: path, mode: .replace)
        } catch {
            throw ShellCommandError.failed("\(error); nothing was exported")
        }
        var buffer = "", count = 0, span: (first: Int, last: Int)?
        let damaged: [String]
        do {
            damaged = try session.forEachJournalEntry(range) { entry in
                buffer += entry.line
                buffer += "\n"
                count += 1
                span = (span?.first ?? entry.number, entry.number)
                if buffer.utf8.count >= 1 << 16 {
                    try log.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            // A log with an entry missing would replay to other states: refused, naming the row.
            if damaged.isEmpty {
                try log.write(buffer)
                try log.close()
            }
        } catch let error as SessionError {
            log.discard()
            throw ShellCommandError.failed("\(error.description); nothing was exported")
        } catch {
            log.discard()
            throw ShellCommandError.failed("\(error); nothing was exported")
        }
        guard damaged.isEmpty else {
            log.discard()
            throw ShellCommandError.failed("session '\(session.name)': " + damaged.joined(separator: "; ")
                + "; nothing was exported (:export FILE FROM-TO exports a range without it)")
        }
        let spanText = span.map { " (\($0.first)-\($0.last))" } ?? ""
        print("exported \(count) entr\(count == 1 ? "y" : "ies")\(spanText) to \(path)")
    }

    private static func size(_ bytes: Int) -> String {
        bytes < 10_000 ? "\(bytes) bytes" : bytes < 10_000_000 ? "\(bytes / 1_000) kB" : "\(bytes / 1_000_000) MB"
    }
}
