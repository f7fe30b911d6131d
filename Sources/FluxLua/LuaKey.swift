/// A key of a ``LuaValue/table(_:)``: an integer stays an integer (`[10]`), so a payload read from Lua is
/// pushed back with the keys it had. Keys of other types (floats, booleans) are kept as their text.
public enum LuaKey: Hashable, Sendable {
    /// An integer key, `t[10]`.
    case integer(Int)
    /// A string key, `t.name`.
    case string(String)
}

extension LuaKey: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, CustomStringConvertible, Comparable {
    /// `.string(value)`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `.integer(value)`.
    public init(integerLiteral value: Int) { self = .integer(value) }

    /// The key as text: `10`, `name`.
    public var description: String {
        switch self {
        case let .integer(value): String(value)
        case let .string(value): value
        }
    }

    /// Integers first, by value; then strings.
    public static func < (lhs: LuaKey, rhs: LuaKey) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): a < b
        case let (.string(a), .string(b)): a < b
        case (.integer, .string): true
        case (.string, .integer): false
        }
    }
}
