import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines entered in the shell, kept in a file between sessions.
///
/// The file lives at ``standardPath(environment:)`` unless another path is given, holds at most
/// ``limit`` entries (the oldest go first) and is created, with its directories, when the first
/// entry is added. A blank entry, or one equal to the entry before it, is not added.
///
/// Entries are appended as they are added, so two shells running at once keep both their lines.
/// The file has one entry per line with `\` written `\\` and a newline `\n`: a multi-line chunk the
/// REPL adds as one entry comes back as one entry (readline's own history file would split it).
public final class LineHistory {
    /// How many entries a history keeps unless told otherwise.
    public static let defaultLimit = 1000

    /// The history file, or nil for a history kept in memory only.
    public let path: String?
    /// The most entries kept, in memory and in the file.
    public let limit: Int
    /// The entries, oldest first: those read from the file, then those added.
    public private(set) var entries: [String]
    /// The last error reading or writing the file, for the REPL to report; the history carries on
    /// in memory regardless.
    public private(set) var lastError: (any Error)?

    /// Lines in the file as far as this history knows (other shells may have appended more).
    private var fileLineCount = 0

    /// Creates a history and reads the entries already in its file, if any.
    ///
    /// - Parameters:
    ///   - path: The history file, or nil to keep the history in memory only.
    ///   - limit: The most entries kept; at least 1.
    public init(path: String?, limit: Int = defaultLimit) {
        precondition(limit > 0, "a history keeps at least one entry")
        self.path = path
        self.limit = limit
        self.entries = []
        guard let path, FileManager.default.fileExists(atPath: path) else { return }
        do {
            let lines = try Self.readLines(path)
            fileLineCount = lines.count
            entries = lines.suffix(limit).map(Self.decode)
        } catch {
            lastError = error
        }
    }

    /// A history in the standard file, ``standardPath(environment:)``, or in memory when there
    /// is no home directory to put it in.
    public static func standard(limit: Int = defaultLimit) -> LineHistory {
        LineHistory(path: standardPath(), limit: limit)
    }

    /// Where the history file goes: `$XDG_STATE_HOME/fluxsh/history`, or
    /// `~/.local/state/fluxsh/history` when `XDG_STATE_HOME` is unset, empty or relative (the XDG
    /// base-directory rules); nil when there is no home directory either.
    ///
    /// - Parameter environment: The environment variables to follow.
    public static func standardPath(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/fluxsh/history"
        }
        guard let home = environment["HOME"].flatMap({ $0.isEmpty ? nil : $0 }) ?? passwordHome() else {
            return nil
        }
        return home + "/.local/state/fluxsh/history"
    }

    /// Adds an entry, unless it is blank or repeats the last entry, and appends it to the file.
    ///
    /// - Parameter entry: A line, or several joined with newlines for a multi-line chunk.
    /// - Returns: Whether the entry was added.
    @discardableResult
    public func add(_ entry: String) -> Bool {
        guard !entry.allSatisfy(\.isWhitespace), entry != entries.last else { return false }
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
        if let path {
            do {
                try append(Self.encode(entry), to: path)
            } catch {
                lastError = error
            }
        }
        return true
    }

    // MARK: - The file

    private func append(_ line: String, to path: String) throws {
        try Self.createDirectory(containing: path)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HistoryFileError(path: path, operation: "open", code: errno) }
        defer { close(fd) }
        // One write of a whole line: appends from two shells do not interleave.
        try Self.writeAll(Array((line + "\n").utf8), to: fd, path: path)
        fileLineCount += 1
        if fileLineCount > limit { try truncate(path) }
    }

    /// Rewrites the file with its last `limit` lines, through a temporary file renamed over it so
    /// a crash never leaves half a history.
    private func truncate(_ path: String) throws {
        let kept = try Self.readLines(path).suffix(limit)
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HistoryFileError(path: temporary, operation: "open", code: errno) }
        do {
            try Self.writeAll(Array(kept.map { $0 + "\n" }.joined().utf8), to: fd, path: temporary)
            close(fd)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw HistoryFileError(path: path, operation: "rename", code: code)
        }
        fileLineCount = kept.count
    }

    private static func readLines(_ path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HistoryFileError(path: path, operation: "read", code: errno == 0 ? EIO : errno)
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw HistoryFileError(path: path, operation: "write", code: errno)
            }
            offset += written
        }
    }

    private static func createDirectory(containing path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        // Private: the history holds whatever was typed.
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private static func passwordHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }

    // MARK: - One entry per line

    /// The entry as one line: `\` → `\\`, newline → `\n`.
    static func encode(_ entry: String) -> String {
        var line = ""
        for character in entry.unicodeScalars {
            switch character {
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            default: line.unicodeScalars.append(character)
            }
        }
        return line
    }

    /// The entry a line of the file holds; a backslash before anything else stays as it is.
    static func decode(_ line: String) -> String {
        var entry = ""
        var escaped = false
        for character in line.unicodeScalars {
            if escaped {
                switch character {
                case "n": entry += "\n"
                case "\\": entry += "\\"
                default: entry += "\\"; entry.unicodeScalars.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                entry.unicodeScalars.append(character)
            }
        }
        if escaped { entry += "\\" }
        return entry
    }
}

/// A history file that could not be read or written.
public struct HistoryFileError: Error, CustomStringConvertible, Sendable {
    /// The file.
    public var path: String
    /// What failed: `open`, `read`, `write` or `rename`.
    public var operation: String
    /// The `errno` it failed with.
    public var code: Int32

    /// The failure as a message, e.g. `cannot write /home/a/.local/state/fluxsh/history: No space left on device`.
    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(code)))"
    }
}
