import CFluxLua
import CLua
import Flux

/// Decodes any `Decodable` from a value on a Lua stack.
///
/// The mirror of `LuaEncoder`: tables with string keys decode into structs and `[String: X]`,
/// sequences into arrays, integers into `Int` (a float too, when its value is integral), numbers into
/// `Double`, booleans into `Bool`, strings into `String`. An empty table is an empty array or an empty
/// dictionary, as the Swift type asks. A nil or missing value decodes only into an optional.
///
/// Errors are `DecodingError`s whose `fieldMessage` names the path and what was wrong, from the
/// `root` given: `field 'state.filters[3].enabled': expected a boolean, got string`. A table containing
/// itself, a table nested deeper than `maximumDepth`, a table with other keys decoded as an array,
/// and a float that is not an integer decoded as one are errors of the same form, never a hang.
///
/// ```swift
/// let filter = try LuaDecoder().decode(Filter.self, from: lua, at: 1, root: "filter")
/// ```
public struct LuaDecoder {
    /// Handed to `init(from:)` implementations as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: Any] = [:]
    /// How deeply tables may nest.
    public var maximumDepth = 200
    /// Whether a table decoded into a keyed type may hold only the keys that type reads: a misspelt
    /// field is then an error naming it (`field 'filtr': unknown field (fields: filter)`)
    /// instead of being ignored. Types that list the keys themselves (`allKeys`) are not checked.
    public var rejectsUnknownKeys = false
    /// Keys any table may hold besides its type's fields when ``rejectsUnknownKeys`` is set (such as
    /// the `type` of `flux.dispatch{type = …}`).
    public var allowedExtraKeys: Set<String> = []

    /// A decoder with the default options.
    public init() {}

    /// The value at `index` decoded as `T`. The stack is left as it was.
    public func decode<T: Decodable>(_ type: T.Type, from stack: LuaStack, at index: Int32, root: String? = nil) throws -> T {
        let index = stack.absoluteIndex(index)
        let base = stack.top
        defer { stack.top = base }
        let path: [any CodingKey] = root.map { [LuaCodingKey(stringValue: $0)] } ?? []
        return try LuaValueDecoder.decode(type, at: index, path: path, parent: nil, stack: stack, options: self)
    }
}

extension LuaStack {
    /// The value at `index` decoded as `T` by a default `LuaDecoder`; `root` names it in error paths.
    public func decode<T: Decodable>(_ type: T.Type, at index: Int32, root: String? = nil) throws -> T {
        try LuaDecoder().decode(type, from: self, at: index, root: root)
    }
}

/// The `Decoder` for the value in one stack slot.
final class LuaValueDecoder: Decoder {
    let stack: LuaStack
    let options: LuaDecoder
    /// The absolute stack index of the value.
    let index: Int32
    let codingPath: [any CodingKey]
    /// The decoder of the enclosing value: its chain lists the tables being decoded, to detect cycles.
    let parent: LuaValueDecoder?
    let depth: Int
    /// The table this decoder opened a container on.
    private(set) var table: UnsafeRawPointer?
    /// The keys the keyed containers on this value read, when unknown keys are rejected.
    var readKeys: Set<String>?
    /// Whether a keyed container listed the table's keys itself: it knows what it accepts.
    var listedKeys = false

    init(stack: LuaStack, options: LuaDecoder, index: Int32, codingPath: [any CodingKey], parent: LuaValueDecoder?) {
        self.stack = stack
        self.options = options
        self.index = index
        self.codingPath = codingPath
        self.parent = parent
        depth = (parent?.depth ?? 0) + 1
    }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try openTable(expected: "a table", type: [String: Any].self)
        if options.rejectsUnknownKeys, readKeys == nil { readKeys = options.allowedExtraKeys }
        return KeyedDecodingContainer(LuaKeyedDecodingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try openTable(expected: "an array", type: [Any].self)
        return try LuaUnkeyedDecodingContainer(decoder: self)
    }

    func singleValueContainer() -> any SingleValueDecodingContainer {
        LuaSingleValueDecodingContainer(decoder: self)
    }

    /// Checks that the value is a table that may be decoded here: not nested too deep, not one of the
    /// tables it is inside of.
    func openTable(expected: String, type: Any.Type) throws {
        guard stack.type(at: index) == .table else {
            throw LuaDecodingErrors.mismatch(type, expected: expected, at: index, in: stack, path: { codingPath })
        }
        let pointer = lua_topointer(stack.state, index)
        if table == pointer { return } // a second container on the same value
        guard depth <= options.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                debugDescription: "invalid table: nested deeper than \(options.maximumDepth) levels"))
        }
        var enclosing = parent
        while let decoder = enclosing {
            if decoder.table == pointer {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                    debugDescription: "invalid table: it contains itself (a cycle)"))
            }
            enclosing = decoder.parent
        }
        try stack.ensureSpace(4)
        table = pointer
    }

    /// The value at `index` decoded as `T`, as a value nested in this decoder's.
    func decode<T: Decodable>(_ type: T.Type, at index: Int32, path: @autoclosure () -> [any CodingKey]) throws -> T {
        try Self.decode(type, at: index, path: path(), parent: self, stack: stack, options: options)
    }

    /// The value at `index` decoded as `T`: primitives read directly, other types through a decoder.
    static func decode<T: Decodable>(_ type: T.Type, at index: Int32, path: @autoclosure () -> [any CodingKey],
                                     parent: LuaValueDecoder?, stack: LuaStack, options: LuaDecoder) throws -> T {
        if let direct = T.self as? any LuaDirectDecodable.Type { // one conformance lookup for all special cases
            return try direct.decode(at: index, path: path, parent: parent, stack: stack, options: options) as! T
        }
        // Nested containers leave their values on the stack until the value is decoded: drop them
        // here, or a caller iterating a table with `next` finds its key buried.
        let top = stack.top
        defer { if stack.top != top { stack.top = top } }
        let decoder = LuaValueDecoder(stack: stack, options: options, index: index, codingPath: path(), parent: parent)
        let value = try T(from: decoder)
        if let read = decoder.readKeys, !decoder.listedKeys { try decoder.rejectKeys(notIn: read) }
        return value
    }

    /// Throws for the first key of the table (in sorted order) that is not in `known`.
    func rejectKeys(notIn known: Set<String>) throws {
        var unknown: [(name: String, key: LuaCodingKey)] = []
        stack.forEachPair(in: index) {          // [.., key, value]
            if stack.type(at: -2) == .string, let name = stack.string(at: -2) {
                if !known.contains(name) { unknown.append((name, LuaCodingKey(stringValue: name))) }
            } else if stack.isInteger(at: -2), let position = stack.integer(at: -2), !known.contains(String(position)) {
                unknown.append((String(position), LuaCodingKey(index: position - 1))) // shown as [position]
            }
        }
        guard let first = unknown.min(by: { $0.name < $1.name }) else { return }
        let fields = known.subtracting(options.allowedExtraKeys).sorted().joined(separator: ", ")
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [first.key],
            debugDescription: "unknown field"
                + (NameSuggestion.didYouMean(first.name, in: known.subtracting(options.allowedExtraKeys)).map { ", " + $0 } ?? "")
                + " (fields: \(fields.isEmpty ? "none" : fields))"))
    }

    /// [..] -> [..]. Calls `body` with the index of the value pushed by `push`, then pops it.
    func withValue<Result>(_ push: () -> Void, _ body: (Int32) throws -> Result) rethrows -> Result {
        let top = stack.top
        defer { stack.top = top }
        push()
        return try body(top + 1)
    }

    /// ` (the table has 'titel': did you mean 'title'?)` when a missing field's name is close to a key
    /// this decoder's table has, else "".
    func misspelling(of key: (any CodingKey)?) -> String {
        guard let key, key.intValue == nil, stack.type(at: self.index) == .table else { return "" }
        var names: [String] = []
        stack.forEachPair(in: self.index) {
            if stack.type(at: -2) == .string, let name = stack.string(at: -2) { names.append(name) }
        }
        guard let near = names.filter({ NameSuggestion.closest(to: $0, in: [key.stringValue]).isEmpty == false }).min() else { return "" }
        return " (the table has '\(near)': did you mean '\(key.stringValue)'?)"
    }

    /// The value at `index` decoded as `T`, where a nil value is allowed only for optionals.
    func decodeRequired<T: Decodable>(_ type: T.Type, at index: Int32, path: @autoclosure () -> [any CodingKey]) throws -> T {
        if stack.isNil(at: index), !(T.self is any LuaNilDecodable.Type) {
            let path = path()
            throw DecodingError.valueNotFound(type, .init(codingPath: path,
                debugDescription: "expected \(ValueKind.describe(type)), got nil" + misspelling(of: path.last)))
        }
        return try decode(type, at: index, path: path())
    }
}

/// The types the decoder reads itself instead of calling `init(from:)`: primitives (`LuaPrimitive`)
/// and dictionaries with string keys.
protocol LuaDirectDecodable {
    /// The value at `index`; `parent` is the decoder of the enclosing value.
    static func decode(at index: Int32, path: () -> [any CodingKey], parent: LuaValueDecoder?,
                       stack: LuaStack, options: LuaDecoder) throws -> Self
}

/// Dictionaries with string keys decode in one pass over the table, and reject keys that are not
/// strings (the keyed-container route would silently skip them).
extension Dictionary: LuaDirectDecodable where Key == String, Value: Decodable {
    static func decode(at index: Int32, path: () -> [any CodingKey], parent: LuaValueDecoder?,
                       stack: LuaStack, options: LuaDecoder) throws -> Self {
        let decoder = LuaValueDecoder(stack: stack, options: options, index: index, codingPath: path(), parent: parent)
        try decoder.openTable(expected: "a table", type: Self.self)
        var result: [String: Value] = [:]
        try stack.forEachPair(in: decoder.index) {      // [.., key, value]
            let key: String
            if let name = try? String.decode(from: stack, at: -2, path: { [] }) {
                key = name
            } else if stack.isInteger(at: -2), let index = stack.integer(at: -2) {
                key = String(index) // a sequence decoded as a dictionary: "1", "2", …
            } else {
                throw DecodingError.typeMismatch(Self.self, .init(codingPath: decoder.codingPath,
                    debugDescription: "expected a table with string keys, got a \(stack.type(at: -2).name) key"))
            }
            // Two keys Lua tells apart, one key here: refused rather than one value silently lost.
            guard result[key] == nil else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [LuaCodingKey(stringValue: key)],
                    debugDescription: "two keys of the table read as \"\(key)\" (such as [1] and [\"1\"], or one text in two Unicode forms)"))
            }
            result[key] = try decoder.decode(Value.self, at: stack.top, path: decoder.codingPath + [LuaCodingKey(stringValue: key)])
        }
        return result
    }
}

struct LuaKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: LuaValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var stack: LuaStack { decoder.stack }

    /// The string keys of the table, and its integer keys as text.
    var allKeys: [Key] {
        decoder.listedKeys = true
        var keys: [Key] = []
        stack.forEachPair(in: decoder.index) {
            if stack.type(at: -2) == .string, let name = stack.string(at: -2) {
                if let key = Key(stringValue: name) { keys.append(key) }
            } else if stack.isInteger(at: -2), let index = stack.integer(at: -2) {
                if let key = Key(stringValue: String(index)) ?? Key(intValue: index) { keys.append(key) }
            }
        }
        return keys
    }

    /// [..] -> [.., t[key]]: the string key, or the integer key when the string is absent.
    private func push(_ key: Key) {
        decoder.readKeys?.insert(key.stringValue)
        if stack.rawGet(key.stringValue, from: decoder.index) == .nil, let index = key.intValue {
            stack.pop()
            stack.rawGet(index, from: decoder.index)
        }
    }

    func contains(_ key: Key) -> Bool {
        decoder.withValue({ push(key) }) { !stack.isNil(at: $0) }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.withValue({ push(key) }) { stack.isNil(at: $0) }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decode(type, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try decodeIfPresent(type, key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodePrimitive(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodePrimitive(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodePrimitive(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodePrimitive(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodePrimitive(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodePrimitive(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodePrimitive(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodePrimitive(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodePrimitive(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodePrimitive(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodePrimitive(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodePrimitive(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodePrimitive(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodePrimitive(type, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodePrimitiveIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodePrimitiveIfPresent(type, key) }

    /// A nil value is an error unless `T` is an optional. One table lookup per field.
    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.withValue({ push(key) }) { index in
            try decoder.decodeRequired(type, at: index, path: codingPath + [key])
        }
    }

    private func decodeIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try decoder.withValue({ push(key) }) { index in
            stack.isNil(at: index) ? nil : try decoder.decode(type, at: index, path: codingPath + [key])
        }
    }

    /// The typed requirements skip the dynamic type checks of the generic path.
    private func decodePrimitive<P: LuaPrimitive>(_ type: P.Type, _ key: Key) throws -> P {
        do {
            return try decoder.withValue({ push(key) }) { index in
                try P.decode(from: stack, at: index, path: { codingPath + [key] })
            }
        } catch let DecodingError.valueNotFound(type, context) {
            // A missing field may be a misspelled one: say which key of the table is near it.
            throw DecodingError.valueNotFound(type, .init(codingPath: context.codingPath,
                debugDescription: context.debugDescription + decoder.misspelling(of: key)))
        }
    }

    private func decodePrimitiveIfPresent<P: LuaPrimitive>(_ type: P.Type, _ key: Key) throws -> P? {
        try decoder.withValue({ push(key) }) { index in
            stack.isNil(at: index) ? nil : try P.decode(from: stack, at: index, path: { codingPath + [key] })
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = LuaCodingKey.super
        decoder.readKeys?.insert(key.stringValue)
        stack.rawGet(key.stringValue, from: decoder.index)
        return LuaValueDecoder(stack: stack, options: decoder.options, index: stack.top,
                               codingPath: codingPath + [key], parent: decoder)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try child(for: key)
    }

    /// [..] -> [.., t[key]], left on the stack for the nested container until the enclosing value is
    /// decoded.
    private func child(for key: Key) throws -> LuaValueDecoder {
        try stack.ensureSpace(1)
        push(key)
        return LuaValueDecoder(stack: stack, options: decoder.options, index: stack.top,
                               codingPath: codingPath + [key], parent: decoder)
    }
}

struct LuaUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: LuaValueDecoder
    /// The largest integer key: nil elements inside decode as holes.
    let length: Int
    private(set) var currentIndex = 0

    /// An array is a table whose keys are the integers 1…n; it may have holes (nil elements), at most
    /// as many as values (the density Lua itself keeps in a table's array part), so a stray huge index
    /// cannot make decoding loop.
    init(decoder: LuaValueDecoder) throws {
        self.decoder = decoder
        let stack = decoder.stack
        var values = 0
        var largest = 0
        try stack.forEachPair(in: decoder.index) {   // [.., key, value]
            guard stack.isInteger(at: -2), let index = stack.integer(at: -2), index >= 1 else {
                let key = stack.type(at: -2) == .string ? "'\(stack.string(at: -2) ?? "")'" : stack.value(at: -2).description
                throw DecodingError.typeMismatch([Any].self, .init(codingPath: decoder.codingPath,
                    debugDescription: "expected an array, got a table with the key \(key)"))
            }
            values += 1
            largest = max(largest, index)
        }
        guard largest <= 2 * values else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: decoder.codingPath,
                debugDescription: "expected an array, got a sparse table (\(values) values up to index \(largest))"))
        }
        length = largest
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { length }
    var isAtEnd: Bool { currentIndex >= length }
    private var stack: LuaStack { decoder.stack }
    private var elementPath: [any CodingKey] { codingPath + [LuaCodingKey(index: currentIndex)] }

    /// [..] -> [.., t[currentIndex + 1]]
    private func push() {
        stack.rawGet(currentIndex + 1, from: decoder.index)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return true }
        let isNil = decoder.withValue(push) { stack.isNil(at: $0) }
        if isNil { currentIndex += 1 }
        return isNil
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try decoder.withValue(push) { index in
            try decoder.decodeRequired(type, at: index, path: elementPath)
        }
        currentIndex += 1
        return value
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        let value = try decoder.withValue(push) { index in
            stack.isNil(at: index) ? nil : try decoder.decode(type, at: index, path: elementPath)
        }
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try nextChild().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextChild().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try nextChild()
    }

    /// [..] -> [.., t[currentIndex + 1]], left on the stack for the nested container.
    private mutating func nextChild() throws -> LuaValueDecoder {
        try stack.ensureSpace(1)
        push()
        let child = LuaValueDecoder(stack: stack, options: decoder.options, index: stack.top,
                                    codingPath: elementPath, parent: decoder)
        currentIndex += 1
        return child
    }
}

struct LuaSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: LuaValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        decoder.stack.isNil(at: decoder.index)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(type)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try Bool.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: String.Type) throws -> String { try String.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: Double.Type) throws -> Double { try Double.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: Float.Type) throws -> Float { try Float.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: Int.Type) throws -> Int { try Int.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Int8.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Int16.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Int32.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Int64.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: UInt.Type) throws -> UInt { try UInt.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try UInt8.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try UInt16.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try UInt32.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try UInt64.decode(from: decoder.stack, at: decoder.index, path: { codingPath }) }

    private func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeRequired(type, at: decoder.index, path: codingPath)
    }
}
