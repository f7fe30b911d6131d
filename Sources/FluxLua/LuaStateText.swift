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
        StatePiece.joined(try encodePieces(at: index, on: lua, cache: cache, store: ""))
    }

    /// The value at `index` as text in pieces: with `cache`, a large table of `store`'s state is written
    /// again only in the runs of its entries that changed since it was last written at its place, and
    /// the pieces of the others are the objects given then (see ``LuaStateTextCache``).
    static func encodePieces(at index: Int32, on lua: LuaStack, cache: LuaStateTextCache?, store: String) throws -> [StatePiece] {
        let index = lua.absoluteIndex(index)
        var writer = Writer(left: LuaValue.maximumValues)
        if let cache {
            try lua.ensureSpace(2)
            lua.push(cache.texts)
            lua.push(cache.counts)
            writer.cache = lua.top - 1
            writer.large = cache
            writer.store = store
        }
        defer { if cache != nil { lua.pop(2) } }
        try writer.write(at: index, on: lua)
        writer.flush()
        cache?.keep(placesOf: store, only: writer.places)
        return writer.pieces
    }

    /// The path a state's root is named by in messages and in ``LuaStateTextCache``'s places.
    static let rootPath = "state"

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
        pairs(in: text, upTo: limit) > limit
    }

    /// The table entries `text` holds, counted up to one past `limit`: read as bytes, a string's
    /// contents skipped to its closing quote.
    static func pairs(in text: String, upTo limit: Int) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var depth = 0, pairs = 0, index = 0
            let count = bytes.count
            while index < count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    while index < count, bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                case UInt8(ascii: "["):
                    depth += 1
                    if depth & 1 == 0 {
                        pairs += 1
                        if pairs > limit { return pairs }
                    }
                case UInt8(ascii: "]"): depth -= 1
                default: break
                }
                index += 1
            }
            return pairs
        }
    }

    /// Writes values as text, as bytes (copied from a cached text without decoding it), in pieces: the
    /// runs of a large table are pieces of their own (see ``LuaStateTextCache``).
    private struct Writer {
        /// The bytes written since the last piece.
        var text: [UInt8] = []
        /// The pieces before `text`.
        var pieces: [StatePiece] = []
        /// The tables being written, outermost first: one met again is a cycle.
        var open: [UnsafeRawPointer] = []
        /// The stack slots of the keys of the entries being written, outermost first: a value's path.
        var keys: [Int32] = []
        /// Where each entry of the tables being written begins in `text` (its `,`), and the values left then.
        var marks: [(offset: Int, left: Int)] = []
        /// How many more values the state may hold.
        var left: Int
        /// Where the cache's `texts` is on the stack (its `counts` just above), if there is a cache.
        var cache: Int32?
        /// The cache, for its large tables.
        var large: LuaStateTextCache?
        /// The store whose state this is.
        var store = ""
        /// The places of the store's state written as large tables this time.
        var places: Set<String> = []

        init(left: Int) {
            self.left = left
            text.reserveCapacity(4096)
        }

        mutating func append(_ string: String) {
            text.append(contentsOf: string.utf8)
        }

        /// The bytes written since the last piece become a piece.
        mutating func flush() {
            guard !text.isEmpty else { return }
            pieces.append(StatePiece(text))
            text = []
        }

        /// Where the value being written is: `state.items[3].name`.
        func path(on lua: LuaStack) -> String {
            var path = LuaStateText.rootPath
            for key in keys {
                path += lua.isInteger(at: key) ? "[\(lua.integer(at: key) ?? 0)]" : lua.type(at: key) == .string ? ".\(lua.string(at: key) ?? "?")" : "[…]"
            }
            return path
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

        mutating func write(at index: Int32, on lua: LuaStack) throws {
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
                guard !open.contains(pointer) else { throw LuaJSONError("\(path(on: lua)) contains itself (a cycle): it cannot be saved") }
                guard open.count < 200 else { throw LuaJSONError("\(path(on: lua)) is nested deeper than 200 levels: it cannot be saved") }
                try lua.ensureSpace(8)
                let published = cache != nil && flux_ispublished(lua.state, index) != 0
                if published, let texts = cache, try copyCached(index, texts: texts, on: lua) { return }
                var place: String?
                if published, let large {
                    let key = LuaStateTextCache.key(store: store, path: path(on: lua))
                    place = key
                    // Taken out while it is written: a write that fails leaves no half-updated record.
                    if let last = large.large.removeValue(forKey: key), try writeAgain(index, last, place: key, on: lua) { return }
                }
                try writeFresh(index, pointer: pointer, published: published, place: place, on: lua)
            case let other:
                throw LuaJSONError("\(path(on: lua)) is a \(other.name): it cannot be saved")
            }
        }

        /// One entry of a table, `[key,value]`, its key and value at the two slots.
        private mutating func writeEntry(key: Int32, value: Int32, first: Bool, on lua: LuaStack) throws {
            left -= 1
            guard left >= 0 else { throw LuaJSONError(Writer.tooMany) }
            if !first { text.append(UInt8(ascii: ",")) }
            text.append(UInt8(ascii: "["))
            try write(at: key, on: lua)
            text.append(UInt8(ascii: ","))
            keys.append(key)
            defer { keys.removeLast() }
            try write(at: value, on: lua)
            text.append(UInt8(ascii: "]"))
        }

        /// The table at `index` written entry by entry; a published one's text is kept (a large one's
        /// in runs, at `place`).
        private mutating func writeFresh(_ index: Int32, pointer: UnsafeRawPointer, published: Bool, place: String?, on lua: LuaStack) throws {
            let start = text.count, leftBefore = left, piecesBefore = pieces.count, marksBase = marks.count
            open.append(pointer)
            defer {
                open.removeLast()
                marks.removeSubrange(marksBase...)
            }
            text.append(UInt8(ascii: "["))
            var first = true
            try lua.forEachPair(in: index) {       // [.., key, value]
                marks.append((text.count, left))
                try writeEntry(key: lua.top - 1, value: lua.top, first: first, on: lua)
                first = false
            }
            text.append(UInt8(ascii: "]"))
            guard published, let texts = cache else { return }
            // A table holding a large table is written again each time, but for that table's pieces.
            guard pieces.count == piecesBefore else { return }
            if text.count - start <= LuaStateTextCache.largest {
                lua.pushCopy(of: index)
                lua.push(bytes: text[start...])
                lua.rawSet(in: texts)
                lua.pushCopy(of: index)
                lua.push(leftBefore - left)
                lua.rawSet(in: texts + 1)
            } else if let place, let large {
                try keepRuns(index, start: start, marks: Array(marks[marksBase...]), leftBefore: leftBefore, place: place, cache: large, on: lua)
            }
        }

        /// The large table just written at `text[start...]` cut into runs of entries, each a piece, and
        /// kept at `place` with its entries.
        private mutating func keepRuns(_ index: Int32, start: Int, marks: [(offset: Int, left: Int)], leftBefore: Int, place: String,
                                       cache: LuaStateTextCache, on lua: LuaStack) throws {
            let bytes = text, end = text.count - 1 // its `]`
            text = Array(bytes[...start]) // what comes before it, with its `[`
            flush()
            var runs: [LuaStateTextCache.Run] = []
            var first = 0
            for next in 1 ... marks.count {
                let offset = next < marks.count ? marks[next].offset : end
                guard next == marks.count || offset - marks[first].offset >= LuaStateTextCache.run else { continue }
                let piece = StatePiece(Array(bytes[marks[first].offset ..< offset]))
                runs.append(.init(entries: next - first, values: marks[first].left - (next < marks.count ? marks[next].left : left), pieces: [piece]))
                pieces.append(piece)
                first = next
            }
            text = [UInt8(ascii: "]")]
            try lua.ensureSpace(3)
            lua.pushTable(arrayCapacity: Int32(clamping: 2 * marks.count))
            let kv = lua.top
            var position = 0
            lua.forEachPair(in: index) {
                lua.pushCopy(of: -2)
                lua.rawSet(2 * position + 1, in: kv)
                lua.pushCopy(of: -1)
                lua.rawSet(2 * position + 2, in: kv)
                position += 1
            }
            let entries = LuaRef(popping: lua)
            cache.large[place] = .init(table: lua.ref(at: index), kv: entries, count: marks.count, runs: runs, values: leftBefore - left)
            places.insert(place)
        }

        /// Whether the values at two slots are written the same: the same value, of the same subtype
        /// (`1` is not `1.0`, `0.0` is not `-0.0`), a table only as the very same table.
        private static func same(_ first: Int32, _ second: Int32, on lua: LuaStack) -> Bool {
            let type = lua_type(lua.state, first)
            guard type == lua_type(lua.state, second) else { return false }
            guard type == LUA_TNUMBER else { return lua_rawequal(lua.state, first, second) != 0 }
            let integer = lua_isinteger(lua.state, first) != 0
            guard integer == (lua_isinteger(lua.state, second) != 0) else { return false }
            if integer { return lua_rawequal(lua.state, first, second) != 0 }
            return lua_tonumberx(lua.state, first, nil).bitPattern == lua_tonumberx(lua.state, second, nil).bitPattern
        }

        /// The published table at `index`, where `last` was written before: the same table is its pieces
        /// again; a table of the same entries but a few (the copy a handler made) is its runs again but
        /// those holding an entry that changed. False when it cannot tell.
        private mutating func writeAgain(_ index: Int32, _ last: LuaStateTextCache.LargeTable, place: String, on lua: LuaStack) throws -> Bool {
            guard let cache = large else { return false }
            lua.push(last.table)
            let same = lua.rawEqual(index, -1)
            lua.pop()
            if same {
                left -= last.values
                guard left >= 0 else { throw LuaJSONError(Writer.tooMany) }
                text.append(UInt8(ascii: "["))
                flush()
                for run in last.runs { pieces += run.pieces }
                text.append(UInt8(ascii: "]"))
                cache.large[place] = last
                places.insert(place)
                return true
            }
            let entries = last.kv
            guard let pointer = lua_topointer(lua.state, index) else { return false }
            let base = lua.top, leftBefore = left
            defer { lua.top = base }
            open.append(pointer)
            defer { open.removeLast() }
            text.append(UInt8(ascii: "["))
            flush()
            lua.push(entries)
            let kv = lua.top
            var runs: [LuaStateTextCache.Run] = []
            var runIndex = 0, inRun = 0, position = 0, dirty = false, runLeft = left, runPieces = pieces.count
            try lua.forEachPair(in: index) {       // [.., key, value]
                let key = lua.top - 1, value = lua.top
                if runIndex < last.runs.count {
                    if !dirty {
                        lua.rawGet(2 * position + 1, from: kv)
                        lua.rawGet(2 * position + 2, from: kv)
                        let unchanged = Self.same(key, lua.top - 1, on: lua) && Self.same(value, lua.top, on: lua)
                        lua.pop(2)
                        if !unchanged {
                            // The run's entries before this one are as they were: written from the record.
                            dirty = true
                            try writeKept(from: position - inRun, to: position, kv: kv, on: lua)
                        }
                    }
                    if dirty { try writeChanged(key: key, value: value, at: position, kv: kv, on: lua) }
                    inRun += 1
                    position += 1
                    let run = last.runs[runIndex]
                    guard inRun == run.entries else { return }
                    if dirty {
                        flush()
                        runs.append(.init(entries: inRun, values: runLeft - left, pieces: Array(pieces[runPieces...])))
                    } else {
                        left -= run.values
                        guard left >= 0 else { throw LuaJSONError(Writer.tooMany) }
                        pieces += run.pieces
                        runs.append(run)
                    }
                    runIndex += 1
                    (inRun, dirty, runLeft, runPieces) = (0, false, left, pieces.count)
                } else {
                    // Entries past the last ones: new runs, cut as when first written.
                    try writeChanged(key: key, value: value, at: position, kv: kv, on: lua)
                    inRun += 1
                    position += 1
                    guard text.count >= LuaStateTextCache.run else { return }
                    flush()
                    runs.append(.init(entries: inRun, values: runLeft - left, pieces: Array(pieces[runPieces...])))
                    (inRun, runLeft, runPieces) = (0, left, pieces.count)
                }
            }
            if inRun > 0 {
                // The table ends within a run (it has fewer entries), or past the last ones.
                if runIndex < last.runs.count, !dirty { try writeKept(from: position - inRun, to: position, kv: kv, on: lua) }
                flush()
                runs.append(.init(entries: inRun, values: runLeft - left, pieces: Array(pieces[runPieces...])))
            }
            for slot in stride(from: 2 * position + 1, through: 2 * last.count, by: 1) {
                lua.pushNil()
                lua.rawSet(slot, in: kv)
            }
            text.append(UInt8(ascii: "]"))
            cache.large[place] = .init(table: lua.ref(at: index), kv: entries, count: position, runs: runs, values: leftBefore - left)
            places.insert(place)
            return true
        }

        /// The entries at positions `from ..< to` of the record `kv`, unchanged, written.
        private mutating func writeKept(from: Int, to: Int, kv: Int32, on lua: LuaStack) throws {
            for position in from ..< to {
                lua.rawGet(2 * position + 1, from: kv)
                lua.rawGet(2 * position + 2, from: kv)
                try writeEntry(key: lua.top - 1, value: lua.top, first: position == 0, on: lua)
                lua.pop(2)
            }
        }

        /// An entry that changed (or may have), written and put in the record `kv` at `position`.
        private mutating func writeChanged(key: Int32, value: Int32, at position: Int, kv: Int32, on lua: LuaStack) throws {
            try writeEntry(key: key, value: value, first: position == 0, on: lua)
            lua.pushCopy(of: key)
            lua.rawSet(2 * position + 1, in: kv)
            lua.pushCopy(of: value)
            lua.rawSet(2 * position + 2, in: kv)
        }
    }
}
