import Foundation

/// JSON to Lua and back, keeping what a Lua value is: an integer stays an integer (beyond 2^53 too) and a
/// float stays a float, even one holding a whole number (written `2.0`).
///
/// Parsing goes through `JSONSerialization`, which tells the number kinds apart by their text: `2` is
/// an integer, `2.0` and `1e3` are doubles.
enum LuaJSON {
    /// Pushes a value `JSONSerialization` parsed. With `pairs`, a table is a JSON array of `[key, value]`
    /// pairs (the encoding of ``LuaStateText``, where keys of any type survive); without, an object is
    /// a table with string keys and an array a sequence (a payload).
    ///
    /// - Throws: for a number no Lua number holds exactly, or nesting deeper than `depth`.
    /// - Parameter path: where `value` is, for messages (`tags[2]`).
    static func push(_ value: Any, on lua: LuaStack, pairs: Bool, depth: Int = 200, path: String = "") throws {
        guard depth > 0 else { throw LuaJSONError("nested deeper than 200 levels") }
        try lua.ensureSpace(3)
        switch value {
        case is NSNull:
            lua.pushNil()
        case let text as String:
            lua.push(text)
        case let number as NSNumber:
            try push(number, on: lua)
        case let elements as [Any]:
            lua.pushTable(arrayCapacity: pairs ? 0 : Int32(clamping: elements.count))
            for (offset, element) in elements.enumerated() {
                if pairs {
                    guard let pair = element as? [Any], pair.count == 2 else { throw LuaJSONError("a table entry is not a [key, value] pair") }
                    try push(pair[0], on: lua, pairs: true, depth: depth - 1)
                    try push(pair[1], on: lua, pairs: true, depth: depth - 1)
                    guard !lua.isNil(at: -2), !lua.isNil(at: -1) else { throw LuaJSONError("a table entry holds nil") }
                    lua.rawSet(in: -3)
                } else {
                    let place = path + "[\(offset + 1)]"
                    // A Lua sequence cannot hold nil: the list would silently end before it.
                    guard !(element is NSNull) else { throw LuaJSONError("field '\(place)': a list cannot hold null") }
                    try push(element, on: lua, pairs: false, depth: depth - 1, path: place)
                    lua.rawSet(offset + 1, in: -2)
                }
            }
        case let members as [String: Any]:
            if pairs {
                try pushSpecial(members, on: lua)
                return
            }
            lua.pushTable(fieldCapacity: Int32(clamping: members.count))
            for (key, member) in members {
                try push(member, on: lua, pairs: false, depth: depth - 1, path: path.isEmpty ? key : path + "." + key)
                lua.rawSet(key, in: -2)
            }
        default:
            throw LuaJSONError("not a JSON value")
        }
    }

    private static func push(_ number: NSNumber, on lua: LuaStack) throws {
        switch String(cString: number.objCType) {
        case "c", "B":
            lua.push(number.boolValue)
        case "d", "f":
            // -2^63 and integers past Int are parsed as decimals; a literal that is a whole Int stays one.
            if number is NSDecimalNumber, let integer = Int(number.stringValue) {
                lua.push(integer)
            } else {
                lua.push(number.doubleValue)
            }
        default:
            guard let integer = Int(exactly: number.int64Value) else { throw LuaJSONError("integer out of range") }
            lua.push(integer)
        }
    }

    /// `{"float": "inf"}`, `"-inf"`, `"nan"`; `{"bytes": base64}` for a string that is not UTF-8.
    private static func pushSpecial(_ members: [String: Any], on lua: LuaStack) throws {
        guard members.count == 1, let (key, value) = members.first, let text = value as? String else {
            throw LuaJSONError("an object that is not a special value")
        }
        try pushSpecial(key: key, text: text, on: lua)
    }

    /// Pushes the special value `{key: text}`: `{"float": "inf"}` (`"-inf"`, `"nan"`, or a whole float,
    /// which JSON would read as an integer: ``LuaStateText/wholeFloat(_:)``), or `{"bytes": base64}` for a
    /// string that is not UTF-8. ``LuaStateTextReader`` reads the same forms.
    static func pushSpecial(key: String, text: String, on lua: LuaStack) throws {
        switch key {
        case "float":
            switch text {
            case "inf": lua.push(Double.infinity)
            case "-inf": lua.push(-Double.infinity)
            case "nan": lua.push(Double.nan)
            default:
                guard let value = Double(text), value.isFinite else { throw LuaJSONError("unknown float \(text)") }
                lua.push(value)
            }
        case "bytes":
            guard let data = Data(base64Encoded: text) else { throw LuaJSONError("an object that is not a special value") }
            lua.push(bytes: data)
        default:
            throw LuaJSONError("an object that is not a special value")
        }
    }
}

/// Why JSON text does not give a Lua value.
struct LuaJSONError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
