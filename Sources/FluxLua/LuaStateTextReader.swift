import Foundation

/// Reads ``LuaStateText`` straight onto a Lua stack, byte by byte: no `JSONSerialization` tree of
/// bridged objects in between, so a state of megabytes (a session's restart, an undo reaching a saved
/// step) is read in the time it takes to build its tables.
///
/// The text is what ``LuaStateText/encode(at:on:cache:)`` writes: `null`, `true`, `false`, numbers (an
/// integer has neither `.` nor an exponent), strings, a table as `[[key, value], …]`, and the special
/// values `{"float": "inf"}` and `{"bytes": base64}`.
struct LuaStateTextReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let lua: LuaStack
    /// A string's bytes once unescaped, reused.
    private var scratch: [UInt8] = []

    /// Pushes the value `text` holds; on an error the stack is as it was.
    static func push(_ text: String, on lua: LuaStack) throws {
        var text = text
        let top = lua.top
        do {
            try text.withUTF8 { buffer in
                var reader = LuaStateTextReader(bytes: buffer, lua: lua)
                try reader.value(depth: 200)
                reader.skipSpace()
                guard reader.index == buffer.count else { throw reader.error("text after the value") }
            }
        } catch {
            lua.top = top
            throw error
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, lua: LuaStack) {
        self.bytes = bytes
        self.lua = lua
    }

    private func error(_ problem: String) -> LuaJSONError {
        LuaJSONError("the saved state is not readable at byte \(index): \(problem)")
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { throw error("'\(Character(UnicodeScalar(byte)))' expected") }
        index += 1
    }

    private mutating func value(depth: Int) throws {
        guard depth > 0 else { throw LuaJSONError("nested deeper than 200 levels") }
        try lua.ensureSpace(3)
        skipSpace()
        guard index < bytes.count else { throw error("the text ends early") }
        let lua = lua
        switch bytes[index] {
        case UInt8(ascii: "["): try table(depth: depth)
        case UInt8(ascii: "{"): try special()
        case UInt8(ascii: "\""): try string { lua.push(bytes: $0) }
        case UInt8(ascii: "t"): try literal("true") { lua.push(true) }
        case UInt8(ascii: "f"): try literal("false") { lua.push(false) }
        case UInt8(ascii: "n"): try literal("null") { lua.pushNil() }
        default: try number()
        }
    }

    private mutating func literal(_ word: StaticString, push: () -> Void) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { throw error("a value expected") }
        index += count
        push()
    }

    /// `[[key, value], …]`: a table.
    private mutating func table(depth: Int) throws {
        index += 1
        lua.pushTable()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try expect(UInt8(ascii: "["))
            try value(depth: depth - 1)
            try expect(UInt8(ascii: ","))
            try value(depth: depth - 1)
            try expect(UInt8(ascii: "]"))
            guard !lua.isNil(at: -2), !lua.isNil(at: -1) else { throw LuaJSONError("a table entry holds nil") }
            lua.rawSet(in: -3)
            skipSpace()
            guard index < bytes.count else { throw error("the text ends early") }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            guard bytes[index] == UInt8(ascii: ",") else { throw error("',' or ']' expected") }
            index += 1
        }
    }

    /// `{"float": "inf"}` (`"-inf"`, `"nan"`, or a whole float JSON would read as an integer), or
    /// `{"bytes": base64}` for a string that is not UTF-8.
    private mutating func special() throws {
        index += 1
        skipSpace()
        var key = ""
        try string { key = String(decoding: $0, as: UTF8.self) }
        try expect(UInt8(ascii: ":"))
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw LuaJSONError("an object that is not a special value") }
        var text = ""
        try string { text = String(decoding: $0, as: UTF8.self) }
        try expect(UInt8(ascii: "}"))
        try LuaJSON.pushSpecial(key: key, text: text, on: lua)
    }

    /// A number: an integer unless it has a point or an exponent (or does not fit one).
    private mutating func number() throws {
        let start = index
        var isFloat = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                isFloat = true
            } else if !(byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || (byte >= 0x30 && byte <= 0x39)) {
                break
            }
            index += 1
        }
        guard index > start else { throw error("a value expected") }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< index]), as: UTF8.self)
        if !isFloat, let integer = Int(text) {
            lua.push(integer)
        } else if let value = Double(text), value.isFinite || isFloat {
            lua.push(value)
        } else {
            throw error("'\(text)' is not a number")
        }
    }

    /// A string at `index` (its opening quote), given to `body` as its bytes.
    private mutating func string(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("a string expected") }
        index += 1
        let start = index
        // Most strings hold no escape: given as the bytes of the text itself.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
        guard index < bytes.count else { throw error("a string does not end") }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return try body(UnsafeBufferPointer(rebasing: bytes[start ..< index - 1]))
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[start ..< index])
        while true {
            guard index < bytes.count else { throw error("a string does not end") }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\") else {
                scratch.append(byte)
                continue
            }
            guard index < bytes.count else { throw error("a string does not end") }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800 ..< 0xDC00).contains(scalar), index + 1 < bytes.count,
                   bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    let mark = index
                    index += 2
                    let low = try hex4()
                    if (0xDC00 ..< 0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = mark
                    }
                }
                scratch.append(contentsOf: String(UnicodeScalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
            default:
                throw error("an unknown escape in a string")
            }
        }
        try scratch.withUnsafeBufferPointer { try body($0) }
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a string does not end") }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30 ... 0x39: digit = byte - 0x30
            case 0x41 ... 0x46: digit = byte - 0x41 + 10
            case 0x61 ... 0x66: digit = byte - 0x61 + 10
            default: throw error("a bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
