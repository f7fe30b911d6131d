import CLua
import CFluxLua
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

    /// The value at `index` as text; with `cache`, the text of a published table met before is copied
    /// from it, and the texts of those written are kept there (see ``LuaStateTextCache``).
    static func encode(at index: Int32, on lua: LuaStack, cache: LuaStateTextCache? = nil) throws -> String {
        let index = lua.absoluteIndex(index)
        var writer = Writer(left: LuaValue.maximumValues)
        if let cache {
            try lua.ensureSpace(2)
            lua.push(cache.texts)
            lua.push(cache.counts)
            writer.cache = lua.top - 1
        }
        defer { if cache != nil { lua.pop(2) } }
        try writer.write(at: index, on: lua, path: "state")
        return String(decoding: writer.text, as: UTF8.self)
    }

    /// Pushes the value `text` holds.
    static func push(_ text: String, on lua: LuaStack) throws {
        // Counted before it is parsed: a state far past the limit (a file changed by hand) would take
        // minutes and gigabytes to build, only to be refused when it is next saved.
        if pairCount(text, over: LuaValue.maximumValues) {
            throw LuaJSONError("the saved state holds more than \(LuaValue.maximumValues) values, the most a state can be "
                + "saved with: it is not restored")
        }
        try LuaStateTextReader.push(text, on: lua)
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

    /// Writes values as text, as bytes (copied from a cached text without decoding it).
    private struct Writer {
        var text: [UInt8] = []
        /// The tables being written, outermost first: one met again is a cycle.
        var open: [UnsafeRawPointer] = []
        /// How many more values the state may hold.
        var left: Int
        /// Where the cache's `texts` is on the stack (its `counts` just above), if there is a cache.
        var cache: Int32?

        init(left: Int) {
            self.left = left
            text.reserveCapacity(4096)
        }

        mutating func append(_ string: String) {
            text.append(contentsOf: string.utf8)
        }

        /// Copies the cached text of the published table at `index`; false when there is none.
        private mutating func copyCached(_ index: Int32, texts: Int32, on lua: LuaStack) throws -> Bool {
            lua.pushCopy(of: index)
            guard lua.rawGet(from: texts) == .string else {
                lua.pop()
                return false
            }
            lua.pushCopy(of: index)
            lua.rawGet(from: texts + 1)
            left -= lua.integer(at: -1) ?? 0
            lua.pop()
            guard left >= 0 else {
                lua.pop()
                throw LuaJSONError(Writer.tooMany)
            }
            lua.withBytes(at: -1) { text.append(contentsOf: $0) }
            lua.pop()
            return true
        }

        static let tooMany = "state holds more than \(LuaValue.maximumValues) values (a table held in several places is saved in each): it cannot be saved"

        mutating func write(at index: Int32, on lua: LuaStack, path: String) throws {
            switch lua.type(at: index) {
            case .nil, .none: append("null")
            case .boolean: append(lua.isTruthy(at: index) ? "true" : "false")
            case .number:
                if lua.isInteger(at: index), let integer = lua.integer(at: index) {
                    append(String(integer))
                } else {
                    let number = lua.number(at: index) ?? .nan
                    if isWholeFloat(number) { return append(wholeFloat(number)) }
                    append(JSONText.float(number) ?? (number.isNaN ? #"{"float":"nan"}"# : number > 0 ? #"{"float":"inf"}"# : #"{"float":"-inf"}"#))
                }
            case .string:
                let bytes = lua.withBytes(at: index) { Data($0) } ?? Data()
                if let string = String(data: bytes, encoding: .utf8), string.utf8.count == bytes.count {
                    append(JSONText.quote(string))
                } else {
                    append(#"{"bytes":"\#(bytes.base64EncodedString())"}"#)
                }
            case .table:
                guard let pointer = lua_topointer(lua.state, index) else { return append("[]") }
                guard !open.contains(pointer) else { throw LuaJSONError("\(path) contains itself (a cycle): it cannot be saved") }
                guard open.count < 200 else { throw LuaJSONError("\(path) is nested deeper than 200 levels: it cannot be saved") }
                try lua.ensureSpace(4)
                let cached = cache.flatMap { texts in flux_ispublished(lua.state, index) != 0 ? texts : nil }
                if let texts = cached, try copyCached(index, texts: texts, on: lua) { return }
                let start = text.count, leftBefore = left
                open.append(pointer)
                defer { open.removeLast() }
                text.append(UInt8(ascii: "["))
                var first = true
                try lua.forEachPair(in: index) {       // [.., key, value]
                    left -= 1
                    guard left >= 0 else { throw LuaJSONError(Writer.tooMany) }
                    if !first { text.append(UInt8(ascii: ",")) }
                    first = false
                    text.append(UInt8(ascii: "["))
                    try write(at: lua.top - 1, on: lua, path: path)
                    text.append(UInt8(ascii: ","))
                    let key = lua.isInteger(at: -2) ? "[\(lua.integer(at: -2) ?? 0)]" : lua.type(at: -2) == .string ? ".\(lua.string(at: -2) ?? "?")" : "[…]"
                    try write(at: lua.top, on: lua, path: path + key)
                    text.append(UInt8(ascii: "]"))
                }
                text.append(UInt8(ascii: "]"))
                if let texts = cached, text.count - start <= LuaStateTextCache.largest {
                    lua.pushCopy(of: index)
                    lua.push(bytes: text[start...])
                    lua.rawSet(in: texts)
                    lua.pushCopy(of: index)
                    lua.push(leftBefore - left)
                    lua.rawSet(in: texts + 1)
                }
            case let other:
                throw LuaJSONError("\(path) is a \(other.name): it cannot be saved")
            }
        }
    }
}
