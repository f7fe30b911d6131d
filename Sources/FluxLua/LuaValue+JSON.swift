import Flux

extension LuaValue {
    /// The value as JSON that reads back as the same Lua value: a float is written with a point or an
    /// exponent (`2.0`), an integer without, exactly (beyond 2^53 too).
    ///
    /// - Throws: for an infinity or NaN, and for an opaque value (neither has a JSON form).
    func json() throws -> String {
        var text = ""
        try write(into: &text)
        return text
    }

    /// The value as JSON in ``LuaStateText``'s form, where a table is an array of `[key, value]` pairs
    /// (sorted by key), so integer keys stay integers.
    func pairsJSON() throws -> String {
        var text = ""
        try writePairs(into: &text)
        return text
    }

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

    private func writePairs(into text: inout String) throws {
        func pair(_ key: LuaKey, _ value: LuaValue) throws {
            text += "["
            switch key {
            case let .integer(key): text += String(key)
            case let .string(key): text += JSONText.quote(key)
            }
            text += ","
            try value.writePairs(into: &text)
            text += "]"
        }
        switch self {
        case let .array(elements):
            text += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { text += "," }
                try pair(.integer(offset + 1), element)
            }
            text += "]"
        case let .table(fields):
            text += "["
            // Sorted as pairs: no key is looked up again (a hash each).
            for (offset, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if offset > 0 { text += "," }
                try pair(field.key, field.value)
            }
            text += "]"
        case let .number(value) where LuaStateText.isWholeFloat(value):
            text += LuaStateText.wholeFloat(value)
        default:
            try write(into: &text)
        }
    }

    private func write(into text: inout String) throws {
        switch self {
        case .nil: text += "null"
        case let .boolean(value): text += value ? "true" : "false"
        case let .integer(value): text += String(value)
        case let .number(value):
            guard let number = JSONText.float(value) else { throw LuaJSONError("\(Self.render(value)) has no JSON form") }
            text += number
        case let .string(value): text += JSONText.quote(value)
        case let .array(elements):
            text += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { text += "," }
                try element.write(into: &text)
            }
            text += "]"
        case let .table(fields):
            text += "{"
            for (offset, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                guard case let .string(name) = field.key else { throw LuaJSONError("the integer key [\(field.key)] has no JSON object form") }
                if offset > 0 { text += "," }
                text += JSONText.quote(name)
                text += ":"
                try field.value.write(into: &text)
            }
            text += "}"
        case let .opaque(value): throw LuaJSONError("\(value) has no JSON form")
        }
    }
}
