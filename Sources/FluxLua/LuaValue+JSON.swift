import Flux

extension LuaValue {
    /// The value as JSON that reads back as the same Lua value: a float is written with a point or an
    /// exponent (`2.0`), an integer without, exactly (beyond 2^53 too).
    ///
    /// - Throws: for an infinity or NaN, and for an opaque value (neither has a JSON form).
    func json() throws -> String {
        var text: [UInt8] = []
        try write(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the value as ``json()`` writes it, in UTF-8, to `text`; on a throw, `text` may hold part of it.
    func writeJSON(into text: inout [UInt8]) throws {
        try write(into: &text)
    }

    /// The value as JSON in ``LuaStateText``'s form, where a table is an array of `[key, value]` pairs
    /// (sorted by key), so integer keys stay integers.
    func pairsJSON() throws -> String {
        var text: [UInt8] = []
        try writePairs(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the value as ``writeJSON(into:)`` does, unless it holds an integer key or a whole float
    /// (``hasIntegerKeys``, ``hasWholeFloat``): then false, with `text` holding part of it. One pass
    /// where checking first and writing after takes three, and a table's keys put in order with no
    /// array made for them when it has a few.
    func writePlainJSON(into text: inout [UInt8]) throws -> Bool {
        switch self {
        case let .integer(value): JSONText.appendInteger(value, to: &text)
        case let .number(value):
            if LuaStateText.isWholeFloat(value) { return false }
            guard JSONText.appendFloat(value, to: &text) else { throw LuaJSONError("\(Self.render(value)) has no JSON form") }
        case let .string(value): JSONText.appendQuoted(value, to: &text)
        case let .array(elements):
            text.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { text.append(UInt8(ascii: ",")) }
                guard try element.writePlainJSON(into: &text) else { return false }
            }
            text.append(UInt8(ascii: "]"))
        case let .table(fields) where fields.count > Self.fewKeys:
            // Many keys: sorted into an array, as `write` does.
            text.append(UInt8(ascii: "{"))
            for (offset, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                guard case let .string(name) = field.key else { return false }
                if offset > 0 { text.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(name, to: &text)
                text.append(UInt8(ascii: ":"))
                guard try field.value.writePlainJSON(into: &text) else { return false }
            }
            text.append(UInt8(ascii: "}"))
        case let .table(fields) where fields.count <= 2:
            // One or two keys (most payloads): put in order by one comparison.
            text.append(UInt8(ascii: "{"))
            var index = fields.startIndex
            if index != fields.endIndex {
                guard case let .string(first) = fields.keys[index] else { return false }
                let second = fields.index(after: index)
                if second != fields.endIndex {
                    guard case let .string(name) = fields.keys[second] else { return false }
                    if name < first { index = second }
                }
                guard try Self.writeMember(fields[index], into: &text) else { return false }
                if second != fields.endIndex {
                    text.append(UInt8(ascii: ","))
                    guard try Self.writeMember(fields[index == second ? fields.startIndex : second], into: &text) else { return false }
                }
            }
            text.append(UInt8(ascii: "}"))
        case let .table(fields):
            // A few keys: each in turn the least of those after the one before (an integer key ends it).
            text.append(UInt8(ascii: "{"))
            var previous: String?
            for offset in 0 ..< fields.count {
                var least: (name: String, value: LuaValue)?
                for (key, value) in fields {
                    guard case let .string(name) = key else { return false }
                    if let previous, !(previous < name) { continue }
                    if let current = least, !(name < current.name) { continue }
                    least = (name, value)
                }
                guard let least else { break }
                if offset > 0 { text.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(least.name, to: &text)
                text.append(UInt8(ascii: ":"))
                guard try least.value.writePlainJSON(into: &text) else { return false }
                previous = least.name
            }
            text.append(UInt8(ascii: "}"))
        default:
            try write(into: &text)
        }
        return true
    }

    /// Appends `"name":value` for a string key, as ``writePlainJSON(into:)`` writes it.
    private static func writeMember(_ member: (key: LuaKey, value: LuaValue), into text: inout [UInt8]) throws -> Bool {
        guard case let .string(name) = member.key else { return false }
        JSONText.appendQuoted(name, to: &text)
        text.append(UInt8(ascii: ":"))
        return try member.value.writePlainJSON(into: &text)
    }

    /// The most keys ``writePlainJSON(into:)`` puts in order by looking for the least in turn.
    private static let fewKeys = 8

    /// Whether a table in the value has an integer key that JSON's objects would turn into a string.
    var hasIntegerKeys: Bool {
        switch self {
        case let .array(elements): elements.contains { $0.hasIntegerKeys }
        case let .table(fields): fields.contains { if case .integer = $0.key { true } else { $0.value.hasIntegerKeys } }
        default: false
        }
    }

    /// Whether the value holds a float that JSON cannot tell from an integer: from 2^53 up every float
    /// is whole, and `JSONSerialization` reads `9007199254740992.0` as the integer. Such a payload is
    /// written in ``LuaStateText``'s form, where the float is `{"float": "9007199254740992.0"}`.
    var hasWholeFloat: Bool {
        switch self {
        case let .number(value): LuaStateText.isWholeFloat(value)
        case let .array(elements): elements.contains { $0.hasWholeFloat }
        case let .table(fields): fields.values.contains { $0.hasWholeFloat }
        default: false
        }
    }

    private func writePairs(into text: inout [UInt8]) throws {
        func pair(_ key: LuaKey, _ value: LuaValue) throws {
            text.append(UInt8(ascii: "["))
            switch key {
            case let .integer(key): text.append(contentsOf: String(key).utf8)
            case let .string(key): JSONText.appendQuoted(key, to: &text)
            }
            text.append(UInt8(ascii: ","))
            try value.writePairs(into: &text)
            text.append(UInt8(ascii: "]"))
        }
        switch self {
        case let .array(elements):
            text.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { text.append(UInt8(ascii: ",")) }
                try pair(.integer(offset + 1), element)
            }
            text.append(UInt8(ascii: "]"))
        case let .table(fields):
            text.append(UInt8(ascii: "["))
            // Sorted as pairs: no key is looked up again (a hash each).
            for (offset, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if offset > 0 { text.append(UInt8(ascii: ",")) }
                try pair(field.key, field.value)
            }
            text.append(UInt8(ascii: "]"))
        case let .number(value) where LuaStateText.isWholeFloat(value):
            text.append(contentsOf: LuaStateText.wholeFloat(value).utf8)
        default:
            try write(into: &text)
        }
    }

    private func write(into text: inout [UInt8]) throws {
        switch self {
        case .nil: text.append(contentsOf: "null".utf8)
        case let .boolean(value): text.append(contentsOf: (value ? "true" : "false").utf8)
        case let .integer(value): text.append(contentsOf: String(value).utf8)
        case let .number(value):
            guard let number = JSONText.float(value) else { throw LuaJSONError("\(Self.render(value)) has no JSON form") }
            text.append(contentsOf: number.utf8)
        case let .string(value): JSONText.appendQuoted(value, to: &text)
        case let .array(elements):
            text.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { text.append(UInt8(ascii: ",")) }
                try element.write(into: &text)
            }
            text.append(UInt8(ascii: "]"))
        case let .table(fields):
            text.append(UInt8(ascii: "{"))
            for (offset, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                guard case let .string(name) = field.key else { throw LuaJSONError("the integer key [\(field.key)] has no JSON object form") }
                if offset > 0 { text.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(name, to: &text)
                text.append(UInt8(ascii: ":"))
                try field.value.write(into: &text)
            }
            text.append(UInt8(ascii: "}"))
        case let .opaque(value): throw LuaJSONError("\(value) has no JSON form")
        }
    }
}
