import Foundation

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
