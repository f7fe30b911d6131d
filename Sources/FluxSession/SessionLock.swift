import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a session to one process: a second `fluxsh` on the same session would number its journal rows
/// like the first and overwrite its states. An exclusive `flock` on `NAME.sqlite.lock`, held until the
/// session ends (or the process does: the kernel drops the lock of a killed process).
final class SessionLock {
    private let descriptor: Int32

    /// Takes the lock beside `path`.
    ///
    /// - Throws: ``SessionError`` when another process holds it, or the file cannot be opened.
    init(path: String, name: String) throws {
        descriptor = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SessionError("session '\(name)': cannot open \(path).lock: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw SessionError("session '\(name)' is open in another fluxsh (give this one another --session NAME)")
        }
    }

    deinit {
        close(descriptor) // releases the lock
    }
}
