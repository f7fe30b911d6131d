/// Where an outbox's entries are kept: the shell's memory, or a session's database, where an entry is
/// written in the same transaction as its action's journal row (see `Session.outboxStorage()`).
public protocol OutboxStorage: AnyObject {
    /// Every entry kept, oldest first (what a restart sends).
    func storedEntries() throws -> [OutboxEntry]
    /// Keeps `entries` (their `id` not given yet) with the actions that queued them; calls `durable` with
    /// them, ids given, once they are kept for good (in a database: once their transaction committed).
    func enqueue(_ entries: [OutboxEntry], durable: @escaping ([OutboxEntry]) -> Void)
    /// Takes back the entries not kept for good yet that `body` picks (their action was undone); returns how many.
    func withdraw(where body: (OutboxEntry) -> Bool) -> Int
    /// Forgets entry `id` now (sent, or dropped by hand).
    func remove(_ id: Int)
    /// Forgets entry `id` with whatever is kept next (a rejection, with its compensating action; an
    /// undo, with the undo step).
    func removeWithNextSave(_ id: Int)
    /// Keeps an entry's attempts and last error.
    func update(_ entry: OutboxEntry)
    /// The undo step (its number in the dispatcher's history) holding the action of entry `id`, kept
    /// from before a restart: the storage links each entry to its saved step, and the restored history
    /// numbers the step anew. Nil when not known (the step is gone, or the storage keeps no links).
    func restoredStep(of id: Int) -> Int?
}

extension OutboxStorage {
    public func restoredStep(of id: Int) -> Int? { nil }
}

/// Entries kept in memory: durable at once, gone with the process.
public final class MemoryOutboxStorage: OutboxStorage {
    private var entries: [Int: OutboxEntry] = [:]
    private var nextID = 1

    public init() {}

    public func storedEntries() -> [OutboxEntry] {
        entries.values.sorted { $0.id < $1.id }
    }

    public func enqueue(_ new: [OutboxEntry], durable: @escaping ([OutboxEntry]) -> Void) {
        let given = new.map { entry -> OutboxEntry in
            var entry = entry
            entry.id = nextID
            nextID += 1
            entries[entry.id] = entry
            return entry
        }
        durable(given)
    }

    public func withdraw(where body: (OutboxEntry) -> Bool) -> Int { 0 }

    public func remove(_ id: Int) { entries[id] = nil }

    public func removeWithNextSave(_ id: Int) { entries[id] = nil }

    public func update(_ entry: OutboxEntry) {
        if entries[entry.id] != nil { entries[entry.id] = entry }
    }
}
