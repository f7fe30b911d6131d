import Foundation

extension Session {
    /// Whether another process holds the session `name` open now (its database's lock is taken,
    /// ``SessionLock``), so a second shell can be refused before it starts rather than run on keeping
    /// nothing.
    public static func isOpenElsewhere(name: String, directory: URL = SessionPaths.directory()) -> Bool {
        guard (try? SessionPaths.checkName(name)) != nil else { return false }
        return SessionLock.isHeld(path: directory.appendingPathComponent(name + ".sqlite").path)
    }
}
