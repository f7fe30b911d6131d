import Flux
import GRDB
import GRDBSQLite

/// Writes a session's journal runs as rows of `journal` (or of the spill's side table), many rows to
/// a statement: a save of thousands of actions costs a line written into one reused buffer and a few
/// values bound per run, not a statement and its arguments each.
///
/// Each run's line and stores are written back to back into one text, and bound straight from it
/// (`SQLITE_STATIC`: nothing copied) to a multi-row `INSERT` prepared once per connection and size;
/// the bindings are cleared before the text changes again. Each action writes its own payload
/// (``Action/writePayloadJSON(into:)``); the stores are found once per action name in a row.
struct SessionJournalRows {
    /// Each statement's text by its number of rows.
    private let statements: [Int: String]
    /// Whether a row's key goes up by its run's count (the journal's entries) or by one (the spill's rows).
    let keyedByEntries: Bool
    /// The stores that handle an action by its name (the `stores` column), "" for a step.
    var owners: (String) -> String

    /// The most rows one statement writes: 5 values each, far under SQLite's limit on variables.
    static let batch = 64
    /// The statement sizes used, largest first: a save of any number of runs uses at most a few statements of each.
    private static let sizes = [batch, 16, 4, 1]

    /// The text of the rows being written (UTF-8), and where each row's line and stores are in it.
    private var text: [UInt8] = []
    private var fields: [(line: Range<Int>, stores: Range<Int>)] = []
    /// The stores of each action name met in this write (stores may be defined between two), the last one's at hand.
    private var known: [String: String] = [:]
    private var lastName = ""
    private var lastOwners = ""

    /// Rows of `table`, whose key column `key` is `seq` (numbered by entries) or `n` (by rows).
    init(table: String, key: String, keyedByEntries: Bool, owners: @escaping (String) -> String) {
        statements = Dictionary(uniqueKeysWithValues: Self.sizes.map { rows in
            (rows, "INSERT INTO \(table) (\(key), count, line, stores, lastTime) VALUES "
                + repeatElement("(?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
        })
        self.keyedByEntries = keyedByEntries
        self.owners = owners
    }

    /// Writes `runs` as rows keyed from `first` on; returns the key after the last.
    mutating func write(_ runs: some RandomAccessCollection<SessionJournal.Run>, from first: Int, into db: GRDB.Database) throws -> Int {
        known.removeAll(keepingCapacity: true)
        lastName = ""
        var key = first
        var start = runs.startIndex
        while start != runs.endIndex {
            let left = runs.distance(from: start, to: runs.endIndex)
            let size = Self.sizes.first { $0 <= left } ?? 1
            let end = runs.index(start, offsetBy: size)
            key = try writeBatch(runs[start ..< end], from: key, into: db)
            start = end
        }
        return key
    }

    /// One statement's rows.
    private mutating func writeBatch(_ runs: some RandomAccessCollection<SessionJournal.Run>, from first: Int,
                                     into db: GRDB.Database) throws -> Int {
        text.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        for run in runs { encode(run.entry) }
        let statement = try db.cachedStatement(sql: statements[runs.count] ?? "")
        let handle = statement.sqliteStatement
        let (fields, keyedByEntries) = (fields, keyedByEntries)
        var key = first
        return try text.withUnsafeBufferPointer { utf8 -> Int in
            // The text always holds a line, so its buffer has an address.
            guard let base = utf8.baseAddress else { return key }
            return try base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { base -> Int in
                defer { sqlite3_clear_bindings(handle) } // nothing bound points into the text once it changes
                sqlite3_reset(handle)
                var column: Int32 = 1
                for (index, field) in zip(runs.indices, fields) {
                    let count = runs[index].count
                    sqlite3_bind_int64(handle, column, Int64(key))
                    sqlite3_bind_int64(handle, column + 1, Int64(count))
                    sqlite3_bind_text(handle, column + 2, base + field.line.lowerBound, Int32(field.line.count), nil)
                    sqlite3_bind_text(handle, column + 3, base + field.stores.lowerBound, Int32(field.stores.count), nil)
                    sqlite3_bind_double(handle, column + 4, runs[index].lastTime)
                    column += 5
                    key += keyedByEntries ? count : 1
                }
                let code = sqlite3_step(handle)
                guard code == SQLITE_DONE else {
                    let message = db.lastErrorMessage
                    sqlite3_reset(handle)
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
                }
                sqlite3_reset(handle)
                return key
            }
        }
    }

    /// Appends the entry's line and its stores to the text.
    private mutating func encode(_ entry: ActionLogEntry) {
        let lineStart = text.count
        var name = ""
        if let action = entry.action { name = action.name }
        do {
            try entry.writeLine(into: &text)
        } catch {
            // What was written of the line goes; the line that says the payload does not encode stands for it.
            text.removeSubrange(lineStart...)
            text.append(contentsOf: entry.unencodableLine.utf8)
        }
        let storesStart = text.count
        if !name.isEmpty {
            if name != lastName {
                lastName = name
                if let stores = known[name] {
                    lastOwners = stores
                } else {
                    lastOwners = owners(name)
                    known[name] = lastOwners
                }
            }
            text.append(contentsOf: lastOwners.utf8)
        }
        fields.append((lineStart ..< storesStart, storesStart ..< text.count))
    }
}
