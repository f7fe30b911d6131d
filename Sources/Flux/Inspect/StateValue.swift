/// A state or payload as plain data, whatever type held it: what the shell compares to say what an
/// action changed, and prints in Lua's constructor syntax.
///
/// Built from any `Encodable` (``init(encoding:)``): a Swift store's state, a Lua store's table and an
/// action's payload all become the same tree, so one ``StateDiff`` serves them all.
public enum StateValue: Equatable, Sendable {
    /// `nil` in Lua, `null` in JSON, an optional without a value.
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    /// A list; printed with Lua's indices, from 1.
    case array([StateValue])
    /// Fields, sorted by key: whole-number keys first, in order, then names.
    case object([(key: Key, value: StateValue)])

    /// A field's key: a name, or a whole number — a Lua table's integer key, a Swift dictionary's `Int`
    /// key — printed `[1000]`, as Lua prints it, and ordered as numbers, not as text.
    public enum Key: Hashable, Comparable, Sendable, ExpressibleByStringLiteral {
        case index(Int)
        case name(String)

        public init(stringLiteral name: String) { self = .name(name) }

        /// The key a coding key stands for: a whole number when it is one (`stringValue` its digits), as
        /// a dictionary with `Int` keys and a Lua table's integer keys encode theirs; its name otherwise.
        public init(_ key: some CodingKey) {
            if let index = key.intValue, key.stringValue == String(index) {
                self = .index(index)
            } else {
                self = .name(key.stringValue)
            }
        }
    }

    public static func == (lhs: StateValue, rhs: StateValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.number(a), .number(b)): a == b || (a.isNaN && b.isNaN)
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value `value` encodes to.
    ///
    /// - Throws: the value's own encoding error.
    public init(encoding value: any Encodable) throws {
        let slot = StateValueEncoder.Slot()
        try value.encode(to: StateValueEncoder(slot: slot, codingPath: []))
        self = slot.resolved
    }

    /// The value in Lua's constructor syntax on one line: `{index = 4}`, `"X"`, `nil`.
    ///
    /// - Parameter limit: The most characters to print; a longer text ends in `…` (`...` in ASCII).
    public func text(limit: Int = .max, unicode: Bool = true) -> String {
        var text = ""
        write(to: &text, limit: limit)
        guard text.count > limit else { return text }
        let ellipsis = unicode ? "…" : "..."
        return String(text.prefix(max(0, limit - ellipsis.count))) + ellipsis
    }

    private func write(to text: inout String, limit: Int) {
        // Stops early once past the limit, so that a huge state costs no more than the text shown.
        guard text.count <= limit else { return }
        switch self {
        case .null: text += "nil"
        case let .bool(value): text += value ? "true" : "false"
        case let .integer(value): text += String(value)
        case let .number(value): text += value.isFinite ? value.description : value.isNaN ? "0/0" : value > 0 ? "1/0" : "-1/0"
        case let .string(value): text += JSONText.quote(value)
        case let .array(items):
            text += "{"
            for (index, item) in items.enumerated() {
                if index > 0 { text += ", " }
                item.write(to: &text, limit: limit)
                if text.count > limit { return }
            }
            text += "}"
        case let .object(fields):
            text += "{"
            for (index, field) in fields.enumerated() {
                if index > 0 { text += ", " }
                text += Self.key(field.key) + " = "
                field.value.write(to: &text, limit: limit)
                if text.count > limit { return }
            }
            text += "}"
        }
    }

    /// A field's key as in a Lua table constructor: `index`, `["two words"]` or `[1000]`.
    static func key(_ key: Key) -> String {
        switch key {
        case let .index(index): "[\(index)]"
        case let .name(name): isIdentifier(name) ? name : "[\(JSONText.quote(name))]"
        }
    }

    /// `.name`, `["two words"]` or `[1000]` after a path.
    static func member(_ key: Key) -> String {
        if case let .name(name) = key, isIdentifier(name) { return "." + name }
        return Self.key(key)
    }

    private static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0" ... "9").contains($0))) }
            && !keywords.contains(name)
    }
}
