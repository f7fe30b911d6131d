import Flux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where sessions live: `$XDG_STATE_HOME/fluxsh/sessions/`, else `~/.local/state/fluxsh/sessions/`,
/// one SQLite database per session, named after it.
public enum SessionPaths {
    /// The directory holding every session's database.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("fluxsh/sessions")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/state/fluxsh/sessions")
    }
}

extension SessionPaths {
    /// Refuses a name that is not a plain file name: letters, digits, `.`, `_` and `-`, not starting
    /// with a dot, at most 100 characters.
    static func checkName(_ name: String) throws {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a" ... "z").contains($0) || ("A" ... "Z").contains($0) || ("0" ... "9").contains($0) || "._-".unicodeScalars.contains($0)
        }
        guard !name.isEmpty, name.count <= 100, allowed, !name.hasPrefix(".") else {
            throw SessionError("invalid session name '\(name)': use letters, digits, '.', '_' and '-' (not starting with '.')")
        }
    }

    /// Moves the database at `path` (and its write-ahead log) aside, named after `time`; returns
    /// where it went (nil when there was none).
    static func moveAside(_ path: String, name: String, in directory: URL, time: Double) throws -> String? {
        let files = FileManager.default
        guard files.fileExists(atPath: path) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH-mm-ss"
        var stem = name + "." + formatter.string(from: Date(timeIntervalSince1970: time))
        var suffix = 1
        while files.fileExists(atPath: directory.appendingPathComponent(stem + ".sqlite").path) {
            suffix += 1
            stem = name + "." + formatter.string(from: Date(timeIntervalSince1970: time)) + "-\(suffix)"
        }
        for extra in ["", "-wal", "-shm"] where files.fileExists(atPath: path + extra) {
            try files.moveItem(atPath: path + extra, toPath: directory.appendingPathComponent(stem + ".sqlite" + extra).path)
        }
        return directory.appendingPathComponent(stem + ".sqlite").path
    }
}

extension SessionPaths {
    /// `mkdir -p directory`; a file in the way is named: `cannot create a directory in /x/state: Not a
    /// directory`.
    ///
    /// - Throws: ``FileError`` naming the folder that could not be made or the file in its way.
    static func createDirectory(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw FileError(path: directory, operation: "create a directory in", code: ENOTDIR)
            }
            return
        }
        let parent = PathParts.folder(of: directory)
        if !parent.isEmpty, parent != directory {
            // A file where a folder above should be is named itself, not the folder below it.
            var above = stat()
            if stat(parent, &above) == 0, above.st_mode & S_IFMT != S_IFDIR {
                throw FileError(path: parent, operation: "create a directory in", code: ENOTDIR)
            }
            try createDirectory(parent)
        }
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
            throw FileError(path: parent, operation: "create a directory in", code: errno)
        }
    }

    /// Whether there is a non-empty file at `path`, or a write-ahead log beside it.
    static func holdsSomething(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0, info.st_size > 0 { return true }
        return stat(path + "-wal", &info) == 0 && info.st_size > 0
    }
}
