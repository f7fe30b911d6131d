import CFluxLua
import CLua
import Flux

/// The Swift types that map to a single Lua value: booleans, numbers, strings, and `LuaValue`.
///
/// The encoder and decoder handle them without creating a nested coder, which keeps arrays of numbers
/// and struct fields cheap. Integers map to Lua integers, `Double` and `Float` to Lua floats.
protocol LuaPrimitive: LuaDirectDecodable {
    /// [..] -> [.., value], or throws when the value has no Lua form.
    func push(to stack: LuaStack, path: () -> [any CodingKey]) throws
    /// The value at `index`, or a `DecodingError` naming `path`.
    static func decode(from stack: LuaStack, at index: Int32, path: () -> [any CodingKey]) throws -> Self
}

extension LuaPrimitive {
    static func decode(at index: Int32, path: () -> [any CodingKey], parent: LuaValueDecoder?,
                       stack: LuaStack, options: LuaDecoder) throws -> Self {
        try decode(from: stack, at: index, path: path)
    }
}

/// The types a nil Lua value decodes into, which a missing table field therefore does not make an error.
protocol LuaNilDecodable {}
extension Optional: LuaNilDecodable {}
extension LuaValue: LuaNilDecodable {}

enum LuaDecodingErrors {
    /// "expected a string, got boolean"; a nil value is `valueNotFound`, anything else `typeMismatch`.
    static func mismatch(_ type: Any.Type, expected: String? = nil, at index: Int32, in stack: LuaStack,
                         path: () -> [any CodingKey]) -> DecodingError {
        let expected = expected ?? ValueKind.describe(type)
        let found = stack.type(at: index)
        if found == .nil || found == .none {
            return .valueNotFound(type, .init(codingPath: path(), debugDescription: "expected \(expected), got nil"))
        }
        return .typeMismatch(type, .init(codingPath: path(), debugDescription: "expected \(expected), got \(found.name)"))
    }
}

extension Bool: LuaPrimitive {
    func push(to stack: LuaStack, path: () -> [any CodingKey]) { stack.push(self) }

    static func decode(from stack: LuaStack, at index: Int32, path: () -> [any CodingKey]) throws -> Bool {
        guard let value = stack.boolean(at: index) else {
            throw LuaDecodingErrors.mismatch(Bool.self, at: index, in: stack, path: path)
        }
        return value
    }
}

extension String: LuaPrimitive {
    func push(to stack: LuaStack, path: () -> [any CodingKey]) { stack.push(self) }

    /// Only strings decode as strings (Lua would convert numbers; a payload field holding 42 where a name
    /// is expected is a mistake worth reporting), and only valid UTF-8.
    static func decode(from stack: LuaStack, at index: Int32, path: () -> [any CodingKey]) throws -> String {
        let decoded: String?? = stack.withBytes(at: index) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            return text.utf8.elementsEqual(bytes) ? text : nil // repaired: the bytes were not UTF-8
        }
        switch decoded {
        case let .some(.some(text)): return text
        case .some(.none):
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "invalid string: not UTF-8"))
        case .none:
            throw LuaDecodingErrors.mismatch(String.self, at: index, in: stack, path: path)
        }
    }
}

extension Double: LuaPrimitive {
    func push(to stack: LuaStack, path: () -> [any CodingKey]) { stack.push(self) }

    static func decode(from stack: LuaStack, at index: Int32, path: () -> [any CodingKey]) throws -> Double {
        guard let value = stack.number(at: index) else {
            throw LuaDecodingErrors.mismatch(Double.self, at: index, in: stack, path: path)
        }
        return value
    }
}

extension Float: LuaPrimitive {
    func push(to stack: LuaStack, path: () -> [any CodingKey]) { stack.push(Double(self)) }

    static func decode(from stack: LuaStack, at index: Int32, path: () -> [any CodingKey]) throws -> Float {
        Float(try Double.decode(from: stack, at: index, path: path))
    }
}

extension LuaPrimitive where Self: FixedWidthInteger {
    func push(to stack: LuaStack, path: () -> [any CodingKey]) throws {
        guard let value = lua_Integer(exactly: self) else {
            throw EncodingError.invalidValue(self, .init(codingPath: path(),
                debugDescription: "invalid value: \(self) does not fit a Lua integer"))
        }
        lua_pushinteger(stack.state, value)
    }

    /// Integers, and floats with an integral value in range (Lua computes 10 / 2 as 5.0); 1.5, nan and
    /// 1e300 are errors.
    static func decode(from stack: LuaStack, at index: Int32, path: () -> [any CodingKey]) throws -> Self {
        guard stack.type(at: index) == .number else {
            throw LuaDecodingErrors.mismatch(Self.self, at: index, in: stack, path: path)
        }
        if stack.isInteger(at: index) {
            let integer = lua_tointegerx(stack.state, index, nil)
            guard let value = Self(exactly: integer) else {
                throw DecodingError.typeMismatch(Self.self, .init(codingPath: path(),
                    debugDescription: "expected an integer between \(Self.min) and \(Self.max), got \(integer)"))
            }
            return value
        }
        let number = lua_tonumberx(stack.state, index, nil)
        guard let value = Self(exactly: number) else {
            throw DecodingError.typeMismatch(Self.self, .init(codingPath: path(),
                debugDescription: "expected an integer, got \(LuaValue.render(number))"))
        }
        return value
    }
}

extension Int: LuaPrimitive {}
extension Int8: LuaPrimitive {}
extension Int16: LuaPrimitive {}
extension Int32: LuaPrimitive {}
extension Int64: LuaPrimitive {}
extension UInt: LuaPrimitive {}
extension UInt8: LuaPrimitive {}
extension UInt16: LuaPrimitive {}
extension UInt32: LuaPrimitive {}
extension UInt64: LuaPrimitive {}

extension LuaValue: LuaPrimitive {
    func push(to stack: LuaStack, path: () -> [any CodingKey]) { stack.push(self) }

    static func decode(from stack: LuaStack, at index: Int32, path: () -> [any CodingKey]) -> LuaValue {
        stack.value(at: index)
    }
}
