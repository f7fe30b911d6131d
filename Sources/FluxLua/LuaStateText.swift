import CLua
import Flux
import Foundation

/// A Lua store's state as text a session saves: JSON in which a table is an array of `[key, value]`
/// pairs, so that keys of every type survive, integers and floats stay what they were (`2` and `2.0`),
/// strings that are not UTF-8 keep their bytes (`{"bytes": base64}`), and infinities and NaN are
/// `{"float": "inf"}`.
///
/// Functions, userdata, coroutines and cycles cannot be saved (an error names where); a table shared
/// in two places is saved twice, and comes back as two tables, so a state of more than
/// ``LuaValue/maximumValues`` values, counted so, cannot be saved either.
enum LuaStateText {
    /// The encoding's name, saved with the text.
    static let format = "lua-pairs-1"

    /// The value at `index` as text.
    static func encode(at index: Int32, on lua: LuaStack) throws -> String {
        var text = ""
        var open: [UnsafeRawPointer] = []
        var left = LuaValue.maximumValues
        try write(at: lua.absoluteIndex(index), on: lua, into: &text, path: "state", open: &open, left: &left)
        return text
    }

    /// Pushes the value `text` holds.
    static func push(_ text: String, on lua: LuaStack) throws {
        // Counted before it is parsed: a state far past the limit (a file changed by hand) would take
        // minutes and gigabytes to build, only to be refused when it is next saved.
        if pairCount(text, over: LuaValue.maximumValues) {
            throw LuaJSONError("the saved state holds more than \(LuaValue.maximumValues) values, the most a state can be "
                + "saved with: it is not restored")
        }
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        let top = lua.top
        do {
            try LuaJSON.push(value, on: lua, pairs: true)
        } catch {
            lua.top = top
            throw error
        }
    }

    /// Whether `value` is a float JSON cannot tell from an integer once parsed: finite, and 2^53 or
    /// more in size (every such float is whole, and `JSONSerialization` reads `9007199254740992.0` as an
    /// integer).
    static func isWholeFloat(_ value: Double) -> Bool {
        value.isFinite && value.magnitude >= 9_007_199_254_740_992
    }

    /// Such a float in the form that keeps it one: `{"float":"9007199254740992.0"}`.
    static func wholeFloat(_ value: Double) -> String {
        #"{"float":""# + value.description + #""}"#
    }

    /// Whether `text` holds more than `limit` table entries: in this encoding a table is `[` … `]` and
    /// each of its entries a `[key, value]` inside it, so entries are the brackets opened at even depths
    /// (strings skipped).
    static func pairCount(_ text: String, over limit: Int) -> Bool {
        var depth = 0, pairs = 0, inString = false, escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["):
                depth += 1
                if depth & 1 == 0 {
                    pairs += 1
                    if pairs > limit { return true }
                }
            case UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return false
    }

    private static func write(at index: Int32, on lua: LuaStack, into text: inout String, path: String,
                              open: inout [UnsafeRawPointer], left: inout Int) throws {
        switch lua.type(at: index) {
        case .nil, .none: text += "null"
        case .boolean: text += lua.isTruthy(at: index) ? "true" : "false"
        case .number:
            if lua.isInteger(at: index), let integer = lua.integer(at: index) {
                text += String(integer)
            } else {
                let number = lua.number(at: index) ?? .nan
                if isWholeFloat(number) { return text += wholeFloat(number) }
                text += JSONText.float(number) ?? (number.isNaN ? #"{"float":"nan"}"# : number > 0 ? #"{"float":"inf"}"# : #"{"float":"-inf"}"#)
            }
        case .string:
            let bytes = lua.withBytes(at: index) { Data($0) } ?? Data()
            if let string = String(data: bytes, encoding: .utf8), string.utf8.count == bytes.count {
                text += JSONText.quote(string)
            } else {
                text += #"{"bytes":"\#(bytes.base64EncodedString())"}"#
            }
        case .table:
            guard let pointer = lua_topointer(lua.state, index) else { return text += "[]" }
            guard !open.contains(pointer) else { throw LuaJSONError("\(path) contains itself (a cycle): it cannot be saved") }
            guard open.count < 200 else { throw LuaJSONError("\(path) is nested deeper than 200 levels: it cannot be saved") }
            try lua.ensureSpace(4)
            open.append(pointer)
            defer { open.removeLast() }
            text += "["
            var first = true
            try lua.forEachPair(in: index) {       // [.., key, value]
                left -= 1
                guard left >= 0 else {
                    throw LuaJSONError("state holds more than \(LuaValue.maximumValues) values (a table held in several places is saved in each): it cannot be saved")
                }
                if !first { text += "," }
                first = false
                text += "["
                try write(at: lua.top - 1, on: lua, into: &text, path: path, open: &open, left: &left)
                text += ","
                let key = lua.isInteger(at: -2) ? "[\(lua.integer(at: -2) ?? 0)]" : lua.type(at: -2) == .string ? ".\(lua.string(at: -2) ?? "?")" : "[…]"
                try write(at: lua.top, on: lua, into: &text, path: path + key, open: &open, left: &left)
                text += "]"
            }
            text += "]"
        case let other:
            throw LuaJSONError("\(path) is a \(other.name): it cannot be saved")
        }
    }
}
