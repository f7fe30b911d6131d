import CFluxLua
import CLua

/// A snapshot of a Lua value in Swift: what `LuaVM.run` returns, and what a shell prints.
///
/// JSON-like: a table is an `array` when its keys are exactly 1…n (n ≥ 1), otherwise a `table` whose
/// integer keys stay integers and other keys are strings (`name`, and `1.5`, `true` as their text). Functions, userdata and coroutines cannot be
/// copied out and become `opaque` with the text Lua would print for them ("function: 0x…"), as does a
/// table met again inside itself or nested deeper than 200 levels.
///
/// `description` renders the value in Lua syntax: `{1, 2, name = "x"}`.
public enum LuaValue: Hashable, Sendable {
    /// `nil`, or no value.
    case `nil`
    /// `true` or `false`.
    case boolean(Bool)
    /// A number with the integer subtype.
    case integer(Int)
    /// A number with the float subtype.
    case number(Double)
    /// A string (invalid UTF-8 repaired).
    case string(String)
    /// A sequence: a table with the keys 1…n.
    case array([LuaValue])
    /// Any other table, the empty one included.
    case table([LuaKey: LuaValue])
    /// A value that cannot be copied out, as Lua prints it ("function: 0x5581…").
    case opaque(String)
}

extension LuaValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `.boolean(value)`.
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    /// `.integer(value)`.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// `.number(value)`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `.string(value)`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `.array(elements)`.
    public init(arrayLiteral elements: LuaValue...) { self = .array(elements) }
    /// `.table(elements)`.
    public init(dictionaryLiteral elements: (LuaKey, LuaValue)...) {
        self = .table(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Reading and pushing

extension LuaStack {
    /// The value at `index` as a `LuaValue`. Never fails: what cannot be copied becomes `.opaque` (a
    /// cycle, a table nested too deep, the tables past ``LuaValue/maximumValues``).
    public func value(at index: Int32) -> LuaValue {
        var enclosing: [UnsafeRawPointer] = []
        var left = LuaValue.maximumValues
        return value(at: absoluteIndex(index), enclosing: &enclosing, left: &left)
    }

    /// The values at `indices`, bottom first.
    public func values(in indices: Range<Int32>) -> [LuaValue] {
        indices.map { value(at: $0) }
    }

    private func value(at index: Int32, enclosing: inout [UnsafeRawPointer], left: inout Int) -> LuaValue {
        left -= 1
        switch type(at: index) {
        case .none, .nil: return .nil
        case .boolean: return .boolean(isTruthy(at: index))
        case .number:
            var isInteger: Int32 = 0
            let integer = lua_tointegerx(state, index, &isInteger)
            return lua_isinteger(state, index) != 0 && isInteger != 0 ? .integer(Int(integer)) : .number(lua_tonumberx(state, index, nil))
        case .string: return .string(string(at: index) ?? "")
        case .table: return table(at: index, enclosing: &enclosing, left: &left)
        default: return .opaque(address(at: index))
        }
    }

    /// [..] -> [..]
    private func table(at index: Int32, enclosing: inout [UnsafeRawPointer], left: inout Int) -> LuaValue {
        guard let pointer = lua_topointer(state, index), !enclosing.contains(pointer),
              enclosing.count < LuaValue.maximumDepth, left >= 0, lua_checkstack(state, 3) != 0
        else { return .opaque(address(at: index)) }
        enclosing.append(pointer)
        defer { enclosing.removeLast() }
        var sequence: [Int: LuaValue] = [:]
        var fields: [LuaKey: LuaValue] = [:]
        forEachPair(in: index) {                        // [.., key, value]
            let element = value(at: top, enclosing: &enclosing, left: &left)
            if lua_isinteger(state, -2) != 0, let key = integer(at: -2) {
                sequence[key] = element
            } else {
                fields[.string(keyText(at: -2))] = element
            }
        }
        if fields.isEmpty, !sequence.isEmpty, sequence.keys.min() == 1, sequence.keys.max() == sequence.count {
            return .array((1 ... sequence.count).map { sequence[$0]! })
        }
        for (key, element) in sequence { fields[.integer(key)] = element }
        return .table(fields)
    }

    /// A table key as text, without converting it in place (which would confuse `lua_next`).
    private func keyText(at index: Int32) -> String {
        switch type(at: index) {
        case .string: string(at: index) ?? ""
        case .number: integer(at: index).map(String.init) ?? String(describing: number(at: index) ?? .nan)
        case .boolean: isTruthy(at: index) ? "true" : "false"
        default: address(at: index)
        }
    }

    /// What Lua prints for a value without `__tostring`: "table: 0x55d1c0a2b4f0".
    func address(at index: Int32) -> String {
        let bits = UInt(bitPattern: lua_topointer(state, index))
        return "\(type(at: index).name): 0x" + String(bits, radix: 16)
    }

    /// [..] -> [.., value]. `.opaque` values cannot be recreated and are pushed as nil.
    public func push(_ value: LuaValue) {
        precondition(lua_checkstack(state, 3) != 0, "Lua stack overflow while pushing a LuaValue")
        switch value {
        case .nil, .opaque: pushNil()
        case let .boolean(value): push(value)
        case let .integer(value): push(value)
        case let .number(value): push(value)
        case let .string(value): push(value)
        case let .array(elements):
            pushTable(arrayCapacity: Int32(clamping: elements.count))
            for (offset, element) in elements.enumerated() {
                push(element)
                rawSet(offset + 1, in: -2)
            }
        case let .table(fields):
            pushTable(fieldCapacity: Int32(clamping: fields.count))
            for (key, element) in fields {
                push(element)
                switch key {
                case let .integer(key): rawSet(key, in: -2)
                case let .string(key): rawSet(key, in: -2)
                }
            }
        }
    }
}

extension LuaValue {
    /// Tables nested deeper than this are not copied out.
    static let maximumDepth = 200
    /// The most values a table is copied out, checked or saved with, a table it holds in several places
    /// counted in each: as a tree, a table held twice on each of 40 levels is 2^40 values, and the walk in
    /// Swift, beyond the budget's and interrupts' reach, would never end. A table of a million entries fits.
    public static let maximumValues = 2_000_000
}

// MARK: - Lua syntax

extension LuaValue: CustomStringConvertible {
    /// The value in Lua syntax: `nil`, `42`, `1.5`, `"text"`, `{1, 2}`, `{name = "x", ["a b"] = 1}`.
    /// Table fields are sorted by key, so the text is stable.
    public var description: String {
        switch self {
        case .nil: return "nil"
        case let .boolean(value): return value ? "true" : "false"
        case let .integer(value): return String(value)
        case let .number(value): return Self.render(value)
        case let .string(value): return Self.quote(value)
        case let .array(elements): return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        case let .table(fields):
            let rendered = fields.sorted { $0.key < $1.key }.map { key, value in
                let name = switch key {
                case let .integer(key): "[\(key)]"
                case let .string(key): Self.isIdentifier(key) ? key : "[\(Self.quote(key))]"
                }
                return name + " = " + value.description
            }
            return "{" + rendered.joined(separator: ", ") + "}"
        case let .opaque(text): return text
        }
    }

    /// Floats the way Lua prints them: integral values keep their ".0"; "inf", "-inf", "nan".
    static func render(_ number: Double) -> String {
        number.isNaN ? "nan" : String(describing: number)
    }

    /// A Lua string literal for `text`.
    static func quote(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case "\0": quoted += "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: quoted += "\\\(scalar.value)"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    private static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    /// Whether `key` can be written bare in a table constructor.
    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !keywords.contains(key) else { return false }
        func isLetter(_ c: Unicode.Scalar) -> Bool { c == "_" || ("a" ... "z").contains(c) || ("A" ... "Z").contains(c) }
        return isLetter(first) && key.unicodeScalars.allSatisfy { isLetter($0) || ("0" ... "9").contains($0) }
    }
}

// MARK: - Codable

extension LuaValue: Codable {
    /// Decodes whatever the decoder holds; with `LuaDecoder` the Lua value is copied as it is, its
    /// integer keys included.
    public init(from decoder: any Decoder) throws {
        if let lua = decoder as? LuaValueDecoder {
            self = lua.stack.value(at: lua.index)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .nil }
        else if let value = try? container.decode(Bool.self) { self = .boolean(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([LuaValue].self) { self = .array(value) }
        else {
            let fields = try container.decode([String: LuaValue].self)
            self = .table(Dictionary(uniqueKeysWithValues: fields.map { (LuaKey.string($0.key), $0.value) }))
        }
    }

    /// Encodes the value as JSON would hold it: integer keys as their text; `opaque` values as their text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .nil: try container.encodeNil()
        case let .boolean(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .table(value):
            var fields = encoder.container(keyedBy: LuaCodingKey.self)
            for (key, element) in value.sorted(by: { $0.key < $1.key }) {
                let codingKey = switch key {
                case let .integer(key): LuaCodingKey(intValue: key)
                case let .string(key): LuaCodingKey(stringValue: key)
                }
                try fields.encode(element, forKey: codingKey)
            }
        case let .opaque(value): try container.encode(value)
        }
    }
}
