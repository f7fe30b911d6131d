import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a session's database to one process: a second `fluxsh` on it would number its journal rows
/// like the first and overwrite its states. An exclusive `flock` on the database file itself, held
/// until the session ends (or the process does: the kernel drops the lock of a killed process).
///
/// The lock is on the file, not on its name: a session reached through a symbolic link, a hard link or
/// another spelling of the folder is the same file and the same lock. (SQLite's own locks are `fcntl`
/// locks, which do not meet `flock` locks on Linux.)
final class SessionLock {
    private let descriptor: Int32

    /// Takes the lock on the database at `path`, creating an empty file there (which SQLite reads as an
    /// empty database) when there is none.
    ///
    /// - Throws: ``SessionError`` when another process holds it, or the file cannot be opened.
    init(path: String, name: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SessionError("session '\(name)': cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw SessionError("session '\(name)' is open in another fluxsh (\(path)); give this one another --session NAME")
        }
    }

    deinit {
        close(descriptor) // releases the lock
    }

    /// Whether another holder has the lock on the database at `path` now (a ``SessionLock`` of another
    /// process, or of another session of this one). Takes the lock for an instant and gives it back; a
    /// file that is not there is held by nobody.
    static func isHeld(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }
}
