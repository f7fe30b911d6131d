/// The payload a cell's action is dispatched with: plain JSON-like data, so a table view model stays
/// codable and is built the same way from Swift and from a Lua table.
///
/// A Lua table codes as an ``object(_:)`` (or an ``array(_:)`` when its keys are 1…n), a whole number
/// as an ``integer(_:)`` (so an action's `Int` field decodes it), any other number as a ``number(_:)``.
///
/// ```swift
/// CellViewModel(title: "Open issues only", action: "annotationFilter.toggleFilter",
///               payload: ["filter": "openIssues"])
/// ```
/// ```lua
/// { title = "Open issues only", action = "annotationFilter.toggleFilter", payload = { filter = "openIssues" } }
/// ```
///
/// A cell whose payload is an ``array(_:)`` offers one choice per element (a board row's squares):
/// a live view's Left and Right keys pick one, and the action is dispatched with that element.
public indirect enum CellPayload: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([CellPayload])
    case object([String: CellPayload])

    /// The elements a cell offers as choices, or nil when the payload is not an array.
    public var choices: [CellPayload]? {
        if case let .array(elements) = self { elements } else { nil }
    }

    /// The payload as a Lua expression, keys sorted: `{filter = "openIssues"}`. Strings are quoted with
    /// every control character escaped, so the text evaluates to exactly this value.
    public var luaSource: String {
        switch self {
        case .null: "nil"
        case let .bool(value): value ? "true" : "false"
        case let .integer(value): value == .min ? "math.mininteger" : String(value)
        case let .number(value):
            value.isNaN ? "(0/0)" : value.isInfinite ? (value < 0 ? "(-1/0)" : "(1/0)") : "\(value)"
        case let .string(value): Self.quoted(value)
        case let .array(elements): "{" + elements.map(\.luaSource).joined(separator: ", ") + "}"
        case let .object(fields):
            "{" + fields.keys.sorted().map { key in
                (Self.isIdentifier(key) ? key : "[" + Self.quoted(key) + "]") + " = " + fields[key]!.luaSource
            }.joined(separator: ", ") + "}"
        }
    }

    private static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(0x30...0x39).contains(first), !keywords.contains(key) else { return false }
        return key.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }
    }

    /// `text` in double quotes; quotes, backslashes and control bytes escaped, other bytes as they are.
    private static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = [0x22]
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C: bytes += [0x5C, byte]
            case 0x20...0x7E, 0x80...0xFF: bytes.append(byte)
            default: // three digits always, so a digit after it is not read as part of it
                bytes += [0x5C, 0x30 + byte / 100, 0x30 + byte / 10 % 10, 0x30 + byte % 10]
            }
        }
        bytes.append(0x22)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension CellPayload: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: CellPayload...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, CellPayload)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension CellPayload: Codable {
    private struct FieldKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes any JSON-like value: an object (string keys), an array, a string, a whole or other
    /// number, a boolean or null.
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: FieldKey.self), !keyed.allKeys.isEmpty {
            var fields: [String: CellPayload] = [:]
            for key in keyed.allKeys {
                fields[key.stringValue] = try keyed.decode(CellPayload.self, forKey: key)
            }
            self = .object(fields)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [CellPayload] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(CellPayload.self)) }
            self = elements.isEmpty ? .object([:]) : .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: single, debugDescription: "a payload must be a table, string, number, boolean or nil")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case let .bool(value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case let .integer(value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case let .number(value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case let .string(value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case let .array(elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case let .object(fields):
            var keyed = encoder.container(keyedBy: FieldKey.self)
            for key in fields.keys.sorted() { try keyed.encode(fields[key]!, forKey: FieldKey(stringValue: key)) }
        }
    }
}
