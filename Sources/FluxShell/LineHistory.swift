import Flux
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
    /// Whether the file ends in a line without its newline (cut short by an older writer), which the
    /// next entry must not be glued to.
    private var endsMidLine = false
    /// Whether ``lastError`` has been handed out by ``takeUnreportedError()``.
    private var reported = false

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
        guard let path else { return }
        lastError = Self.writeProblem(path)
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            let (lines, endsMidLine) = try Self.readLines(path)
            fileLineCount = lines.count
            self.endsMidLine = endsMidLine
            entries = lines.suffix(limit).map(Self.decode)
        } catch {
            lastError = error
        }
    }

    /// Why the file is not being written, the first time it is asked after a failure, and nil
    /// otherwise: the REPL reports a history it cannot save once, not at every line.
    ///
    /// A path that cannot be written (a file where a folder should be, a read-only folder) is found
    /// when the history is created, so the reason can be given at start.
    public func takeUnreportedError() -> String? {
        guard let lastError, !reported else { return nil }
        reported = true
        return "history not saved: \(lastError)"
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
        let file = try FileWriter(path: path, mode: .append, permissions: 0o600)
        // One write of a whole line, undone if cut short: appends from two shells do not interleave,
        // and a full disk leaves no half line for the next entry to be glued to.
        try file.write((endsMidLine ? "\n" : "") + line + "\n")
        try file.close()
        endsMidLine = false
        fileLineCount += 1
        if fileLineCount > limit { try truncate(path) }
    }

    /// Rewrites the file with its last `limit` lines, replaced whole so a crash or a full disk never
    /// leaves half a history.
    private func truncate(_ path: String) throws {
        let kept = try Self.readLines(path).lines.suffix(limit)
        try FileWriter.replace(path, with: kept.map { $0 + "\n" }.joined(), permissions: 0o600)
        fileLineCount = kept.count
    }

    /// The lines of the file, and whether its last one lacks its newline.
    private static func readLines(_ path: String) throws -> (lines: [String], endsMidLine: Bool) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(path: path, operation: "read", code: errno == 0 ? EIO : errno)
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, data.last.map { $0 != UInt8(ascii: "\n") } ?? false)
    }

    private static func createDirectory(containing path: String) throws {
        let directory = PathParts.folder(of: path)
        if !directory.isEmpty { try createDirectory(directory) }
    }

    /// `mkdir -p`, each new folder private: the history holds whatever was typed.
    private static func createDirectory(_ directory: String) throws {
        var info = stat()
        guard stat(directory, &info) != 0 else { return }  // a file in the way fails the open, ENOTDIR
        let parent = PathParts.folder(of: directory)
        if !parent.isEmpty, parent != directory { try createDirectory(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw FileError(path: directory, operation: "create the directory", code: errno)
        }
    }

    /// Why the file at `path` could not be written, found without creating anything: the file, or
    /// the nearest folder above it that exists, must be writable (and a folder a folder).
    static func writeProblem(_ path: String) -> FileError? {
        var current = path
        while !current.isEmpty, current != "/" {
            var info = stat()
            if stat(current, &info) == 0 {
                let isDirectory = info.st_mode & S_IFMT == S_IFDIR
                if current == path {
                    if isDirectory { return FileError(path: path, operation: "write", code: EISDIR) }
                } else if !isDirectory {
                    return FileError(path: current, operation: "create a directory in", code: ENOTDIR)
                }
                guard access(current, current == path ? W_OK : W_OK | X_OK) != 0 else { return nil }
                return FileError(path: current, operation: current == path ? "write" : "create a directory in", code: errno)
            }
            // ENOTDIR: a file on the way, found further up.
            guard errno == ENOENT || errno == ENOTDIR else { return FileError(path: current, operation: "write", code: errno) }
            current = PathParts.folder(of: current)
        }
        return nil
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
