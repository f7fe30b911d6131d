import Flux
import Foundation
import GRDB

/// One action or step of a session's journal, as `:history` lists it and `:export` writes it.
public struct JournalEntry {
    /// Its number in the journal, from 1.
    public let number: Int
    /// The action-log line (the time is the first of a run's).
    public let line: String
    /// The stores that handle it.
    public let stores: [String]
}

/// The size of a session, as `:session` shows it.
public struct SessionSummary {
    /// The journal's length: its last entry's number.
    public let journalLength: Int
    /// The number of its first entry kept (entries before it were compacted away).
    public let firstEntry: Int
    /// How many rows hold them (a run of identical actions is one row).
    public let journalRows: Int
    /// The database's size on disk, its write-ahead log included, in bytes.
    public let bytes: Int
}

extension Session {
    /// The journal's size and the file's, after saving what is pending.
    public func summary() throws -> SessionSummary {
        save()
        // Rows kept before the first entry only for :goto (see ``compact(keeping:)``) are not the journal's.
        let rows = try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal WHERE seq + count > ?", arguments: [firstNumber]) ?? 0
        }
        return SessionSummary(journalLength: nextNumber - 1, firstEntry: firstNumber, journalRows: rows, bytes: bytes)
    }

    /// The database's size on disk, its write-ahead log included, in bytes.
    var bytes: Int {
        ["", "-wal"].reduce(0) { total, extra in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + extra)[.size] as? Int) ?? 0)
        }
    }

    /// The journal's entries numbered `range` (clamped to what it holds), oldest first, after saving
    /// what is pending; each action of a run is an entry of its own.
    ///
    /// - Throws: ``SessionError`` when the range reaches before the first entry kept by a compaction.
    public func journal(_ range: ClosedRange<Int>) throws -> [JournalEntry] {
        save()
        if firstNumber > 1, range.lowerBound < firstNumber {
            throw SessionError("entries 1-\(firstNumber - 1) were compacted away: the journal starts at entry \(firstNumber)")
        }
        let (lower, upper) = (max(1, range.lowerBound), min(nextNumber - 1, range.upperBound))
        guard lower <= upper else { return [] }
        let range = lower ... upper
        let rows = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT seq, count, line, stores FROM journal
                WHERE seq <= ? AND seq + count > ? ORDER BY seq
                """, arguments: [range.upperBound, range.lowerBound])
        }
        var entries: [JournalEntry] = []
        for row in rows {
            let first: Int = row["seq"], count: Int = row["count"], line: String = row["line"], stores: String = row["stores"]
            let names = stores.split(separator: ",").map(String.init)
            for number in max(first, range.lowerBound) ... min(first + count - 1, range.upperBound) {
                entries.append(JournalEntry(number: number, line: line, stores: names))
            }
        }
        return entries
    }

    /// The journal's length: its last entry's number.
    public var journalLength: Int { nextNumber - 1 + journal.pendingCount }
}
