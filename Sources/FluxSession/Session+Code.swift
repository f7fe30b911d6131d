import Flux
import GRDB

/// Which code made each journal entry: a version of each store's handlers (``Session/codeVersion``),
/// recorded in the `code` table with the journal's length when it changed. A replay of entries made by
/// handlers that changed since would not make the states they made; ``Session/goTo(entry:decode:)``
/// refuses it, naming the change, and reaches such entries only where a snapshot holds their states.
extension Session {
    /// Records the version of each store's code that differs from the one last recorded (a plugin
    /// reloaded with other handlers, a store defined again, a plugin changed between two runs), with a
    /// snapshot of the states there: entries from there on replay from it. Cheap enough after every line.
    public func noteCodeVersions() {
        guard let codeVersion else { return }
        var changed = false
        for store in dispatcher.stores {
            guard let code = codeVersion(store), knownCode[store.name] != code.version else { continue }
            changed = changed || knownCode[store.name] != nil
            knownCode[store.name] = code.version
            pendingCode.append((journal.pendingCount, store.name, code.version, code.origin))
        }
        if changed, isJournalling { journal.snapshot() }
    }

    /// The latest version recorded of each store's code; a damaged row is said and left out (the next
    /// version is then recorded as a change, which only makes :goto more careful).
    static func readCode(_ db: GRDB.Database, damage: inout [String]) throws -> [String: String] {
        var versions: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT seq, store, version FROM code ORDER BY seq") {
            let checked = SessionRow(row, table: "code", key: "seq")
            do {
                versions[try checked.text("store")] = try checked.text("version")
            } catch {
                damage.append("\(error); left out")
            }
        }
        return versions
    }

    /// Writes the versions noted since the last save, each at the journal's length when it was noted.
    func writeCode(from first: Int, into db: GRDB.Database) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO code (seq, store, version, origin) VALUES (?, ?, ?, ?)")
        for change in pendingCode {
            try insert.execute(arguments: [first + change.entries, change.store, change.version, change.origin])
        }
    }

    /// Why entries `base + 1 ... number` cannot be replayed with the handlers now: a store they were
    /// handled by has had other code since one of them was made. Nil when they can.
    func codeChange(after base: Int, touching stores: Set<String>, in db: GRDB.Database) throws -> (seq: Int, store: String, origin: String)? {
        for row in try Row.fetchAll(db, sql: "SELECT seq, store, origin FROM code WHERE seq > ? ORDER BY seq", arguments: [base]) {
            let checked = SessionRow(row, table: "code", key: "seq")
            guard let seq = try? checked.integer("seq"), let store = try? checked.text("store") else { continue }
            // The first version recorded of a store defined after these entries changes nothing of them.
            if stores.contains(store), try hadEarlierVersion(store, before: seq, in: db) {
                return (seq, store, (try? checked.text("origin")) ?? "?")
            }
        }
        return nil
    }

    private func hadEarlierVersion(_ store: String, before seq: Int, in db: GRDB.Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM code WHERE store = ? AND seq < ?", arguments: [store, seq]) ?? 0 > 0
    }
}
