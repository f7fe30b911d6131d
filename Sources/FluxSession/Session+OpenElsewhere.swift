import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Session {
    /// Whether another process holds the session `name` open now (its lock is taken), so a second shell
    /// can be refused before it starts rather than run on keeping nothing.
    public static func isOpenElsewhere(name: String, directory: URL = SessionPaths.directory()) -> Bool {
        guard (try? SessionPaths.checkName(name)) != nil else { return false }
        let path = directory.appendingPathComponent(name + ".sqlite").path + ".lock"
        let descriptor = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false } // never opened: nobody holds it
        defer { Glibc.close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }
}
