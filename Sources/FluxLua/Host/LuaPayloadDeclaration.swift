import Flux

/// The payload fields a Lua store declares for one of its actions
/// (`actions = {["todo.add"] = {title = "string", due = "number?"}}`): a payload with a field it does not
/// declare, without a required one, or with one of the wrong type is refused as a Swift action's would be.
struct LuaPayloadDeclaration: Equatable {
    /// The kinds a field may be declared as.
    enum Kind: String, CaseIterable {
        case string, number, integer, boolean, table
    }

    /// One declared field.
    struct Field: Equatable {
        let kind: Kind
        let isOptional: Bool
    }

    let fields: [String: Field]

    /// Reads a declaration such as `{title = "string", due = "number?"}`.
    ///
    /// - Throws: a message naming the field whose type is not one of ``Kind``.
    init(_ declaration: [String: String], action: String) throws {
        var fields: [String: Field] = [:]
        for (name, text) in declaration {
            let isOptional = text.hasSuffix("?")
            guard let kind = Kind(rawValue: String(isOptional ? text.dropLast() : text[...])) else {
                let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw FluxScriptError("field 'actions[\"\(action)\"].\(name)' must be one of \(kinds) (with ? when optional), got '\(text)'")
            }
            fields[name] = Field(kind: kind, isOptional: isOptional)
        }
        self.fields = fields
    }

    /// The fields as ``PayloadFields``, sorted by name: what `:actions` and completion show.
    var payloadFields: PayloadFields {
        PayloadFields(fields.keys.sorted().map { name in
            PayloadFields.Field(name: name, type: fields[name]!.kind.rawValue, isOptional: fields[name]!.isOptional)
        })
    }

    /// The payload read from `decoder`, field by field: a field it does not read is refused by the decoder.
    /// From a script, each field is plain data, as an undeclared payload must be
    /// (``LuaValueDecoder/checkPlainData()``): a table field is a table, and copying one would otherwise
    /// drop its functions and cycles, change its keys or cut it at the copy's depth without a word.
    func decode(from decoder: any Decoder) throws -> LuaValue {
        let container = try decoder.container(keyedBy: LuaCodingKey.self)
        var payload: [LuaKey: LuaValue] = [:]
        for (name, field) in fields {
            let key = LuaCodingKey(stringValue: name)
            if field.isOptional, try !container.contains(key) || container.decodeNil(forKey: key) { continue }
            if let value = try container.superDecoder(forKey: key) as? LuaValueDecoder {
                if field.kind == .table { try value.openTable(expected: "a table", type: [String: Any].self) }
                try value.checkPlainData()
            }
            payload[.string(name)] = switch field.kind {
            case .string: .string(try container.decode(String.self, forKey: key))
            case .number: .number(try container.decode(Double.self, forKey: key))
            case .integer: .integer(try container.decode(Int.self, forKey: key))
            case .boolean: .boolean(try container.decode(Bool.self, forKey: key))
            case .table: try container.decode(LuaValue.self, forKey: key)
            }
        }
        return .table(payload)
    }
}
