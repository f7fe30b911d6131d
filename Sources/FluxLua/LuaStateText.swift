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
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        let top = lua.top
        do {
            try LuaJSON.push(value, on: lua, pairs: true)
        } catch {
            lua.top = top
            throw error
        }
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
