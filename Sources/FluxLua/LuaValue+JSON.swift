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
            for (offset, key) in fields.keys.sorted().enumerated() {
                if offset > 0 { text += "," }
                text += JSONText.quote(key) + ":"
                try fields[key]!.write(into: &text)
            }
            text += "}"
        case let .opaque(value): throw LuaJSONError("\(value) has no JSON form")
        }
    }
}
