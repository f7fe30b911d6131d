import GRDB

/// A row read from a session's database with every column checked: the file may have been changed by
/// hand, by another program or by a damaged disk, so a column that does not hold what this fluxsh wrote
/// there is a ``DamagedRow`` naming its table and key, never a crash or a value read as something else
/// (`'abc'` as 0).
struct SessionRow {
    let row: Row
    /// The table it comes from.
    let table: String
    /// The column that names the row (`seq`, `store`, `position`).
    let keyColumn: String

    init(_ row: Row, table: String, key: String) {
        self.row = row
        self.table = table
        keyColumn = key
    }

    /// The row's key as the user would look it up: `seq = 5`, `store = 'counter'`.
    var key: String {
        let value: DatabaseValue = row[keyColumn]
        return keyColumn + " = " + Self.describe(value)
    }

    /// The column's text (a BLOB, a number or NULL is damage).
    func text(_ column: String) throws -> String {
        let value: DatabaseValue = row[column]
        guard case let .string(text) = value.storage else { throw damaged(column, value, expected: "text") }
        return text
    }

    /// The column's integer, within `range` (a float, text or NULL is damage).
    func integer(_ column: String, in range: ClosedRange<Int> = Int.min ... Int.max) throws -> Int {
        let value: DatabaseValue = row[column]
        guard case let .int64(integer) = value.storage, let integer = Int(exactly: integer), range.contains(integer) else {
            throw damaged(column, value, expected: range == Int.min ... Int.max ? "an integer" : "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return integer
    }

    /// The column's number (text or NULL is damage).
    func real(_ column: String) throws -> Double {
        let value: DatabaseValue = row[column]
        switch value.storage {
        case let .double(real): return real
        case let .int64(integer): return Double(integer)
        default: throw damaged(column, value, expected: "a number")
        }
    }

    func damaged(_ column: String, _ value: DatabaseValue, expected: String) -> DamagedRow {
        DamagedRow(table: table, key: key, problem: "column '\(column)' holds \(Self.describe(value)), not \(expected)")
    }

    /// A value as the user would see it in `sqlite3`, cut short.
    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case let .int64(integer): return String(integer)
        case let .double(real): return String(real)
        case let .string(text): return "'" + (text.count > 40 ? text.prefix(40) + "…" : text) + "'"
        case let .blob(data): return "a BLOB of \(data.count) bytes"
        }
    }
}

/// A row of a session's database that does not hold what fluxsh writes there.
struct DamagedRow: Error, CustomStringConvertible {
    let table: String
    let key: String
    let problem: String

    var description: String { "table '\(table)', row \(key): \(problem)" }
}

extension SessionRow {
    /// The most actions one journal row stands for: a count past it is damage (and would overflow the
    /// numbers after it).
    static let countRange = 1 ... (1 << 48)
}

/// One value a query returns (a `MAX`, a `PRAGMA`): an integer or NULL, anything else is damage of
/// `table`.
func checkedInteger(_ db: GRDB.Database, _ sql: String, arguments: StatementArguments = [], table: String) throws -> Int? {
    guard let value = try DatabaseValue.fetchOne(db, sql: sql, arguments: arguments) else { return nil }
    switch value.storage {
    case .null: return nil
    case let .int64(integer): return Int(exactly: integer)
    default: throw DamagedRow(table: table, key: "(any)", problem: "holds \(SessionRow.describe(value)) where a number belongs")
    }
}
