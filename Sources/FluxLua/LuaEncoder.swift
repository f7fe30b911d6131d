import CFluxLua
import CLua
import Flux

/// Pushes any `Encodable` onto a Lua stack as the Lua value it reads naturally as.
///
/// Structs and `[String: X]` become tables with string keys, arrays become sequences 1…n, `Int` a Lua
/// integer, `Double` a Lua float (inf and nan included), `Bool` a boolean, `String` a string (embedded
/// "\0" kept). A nil optional field is left out of its table; a nil array element leaves a hole.
///
/// ```swift
/// struct Filter: Codable { var name: String; var enabled: Bool }
/// try LuaEncoder().push(Filter(name: "errors", enabled: true), to: vm.stack)  // [.., {name=…, enabled=true}]
/// ```
public struct LuaEncoder {
    /// Handed to `encode(to:)` implementations as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: Any] = [:]
    /// How deeply values may nest; deeper (a cyclic object graph, for instance) is an error.
    public var maximumDepth = 200

    /// An encoder with the default options.
    public init() {}

    /// [..] -> [.., value], or [..] and a thrown `EncodingError` naming the path of the bad value
    /// (`root` starts the path: "state.items[2]").
    public func push<T: Encodable>(_ value: T, to stack: LuaStack, root: String? = nil) throws {
        let base = stack.top
        do {
            try stack.ensureSpace(4)
            try LuaEncoding(stack: stack, options: self)
                .encode(value, path: root.map { [LuaCodingKey(stringValue: $0)] } ?? [], depth: 0)
        } catch {
            stack.top = base
            throw error
        }
    }
}

extension LuaStack {
    /// [..] -> [.., value]. Pushes `value` encoded by a default `LuaEncoder`.
    public func push<T: Encodable>(_ value: T) throws {
        try LuaEncoder().push(value, to: self)
    }
}

extension EncodingError {
    /// "field 'state.size': invalid value: …", in the style of `DecodingError.fieldMessage`.
    var fieldMessage: String {
        guard case let .invalidValue(_, context) = self else { return String(describing: self) }
        let path = CodingPath.describe(context.codingPath)
        return path.isEmpty ? context.debugDescription : "field '\(path)': \(context.debugDescription)"
    }
}

/// What every coder of one `push` shares.
struct LuaEncoding {
    let stack: LuaStack
    let options: LuaEncoder

    /// [..] -> [.., v]: exactly one value, whatever `value.encode(to:)` does.
    func encode<T: Encodable>(_ value: T, path: @autoclosure () -> [any CodingKey], depth: Int) throws {
        if let primitive = value as? any LuaPrimitive {
            try primitive.push(to: stack, path: path)
            return
        }
        guard depth < options.maximumDepth else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(),
                debugDescription: "invalid value: nested deeper than \(options.maximumDepth) levels"))
        }
        try stack.ensureSpace(4)
        let base = stack.top
        let encoder = LuaValueEncoder(encoding: self, codingPath: path(), depth: depth + 1, sink: nil)
        try value.encode(to: encoder)
        if encoder.slot == 0 {
            stack.pushTable() // encoded nothing: an empty table, as JSONEncoder gives {}
        }
        stack.top = base + 1 // the value is the first thing the encoder pushed; drop nested containers
    }
}

/// The `Encoder` for one value. The value is pushed (at `slot`) the moment it exists: when a container
/// is first asked for (an empty table, filled afterwards, tables being references) or when a single
/// value is encoded. Nested containers and super encoders have a `sink`, the parent table and key their
/// value is stored under as soon as it exists.
final class LuaValueEncoder: Encoder {
    let encoding: LuaEncoding
    let codingPath: [any CodingKey]
    let depth: Int
    let sink: (table: Int32, key: LuaTableKey)?
    /// The stack slot holding the value; 0 until there is one.
    var slot: Int32 = 0
    private var isTable = false
    /// Elements encoded so far when the value is an array.
    var count = 0

    init(encoding: LuaEncoding, codingPath: [any CodingKey], depth: Int, sink: (table: Int32, key: LuaTableKey)?) {
        self.encoding = encoding
        self.codingPath = codingPath
        self.depth = depth
        self.sink = sink
    }

    var userInfo: [CodingUserInfoKey: Any] { encoding.options.userInfo }
    var stack: LuaStack { encoding.stack }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(LuaKeyedEncodingContainer<Key>(encoder: self, table: table()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        LuaUnkeyedEncodingContainer(encoder: self, table: table())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        LuaSingleValueEncodingContainer(encoder: self)
    }

    /// [..] -> [.., {}] the first time; the slot of the encoder's table.
    func table() -> Int32 {
        if slot != 0 {
            precondition(isTable, "asked for a container after encoding a single value")
            return slot
        }
        stack.pushTable()
        isTable = true
        didPush()
        return slot
    }

    /// Records the value just pushed as this encoder's, and stores it in the sink.
    func didPush() {
        slot = stack.top
        guard let sink else { return }
        sink.key.push(to: stack)       // [.., v, key]
        stack.pushCopy(of: slot)       // [.., v, key, v]
        lua_rawset(stack.state, sink.table) // [.., v]
    }

    /// An encoder whose value goes into `table[key]`.
    func child(at key: any CodingKey, table: Int32, tableKey: LuaTableKey) -> LuaValueEncoder {
        LuaValueEncoder(encoding: encoding, codingPath: codingPath + [key], depth: depth + 1, sink: (table, tableKey))
    }
}

struct LuaKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: LuaValueEncoder
    let table: Int32

    var codingPath: [any CodingKey] { encoder.codingPath }

    /// Lua tables cannot hold nil: the key is left out.
    mutating func encodeNil(forKey key: Key) {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeValue(value, forKey: key)
    }

    /// [..] -> [..], table[key] = value
    private func encodeValue<T: Encodable>(_ value: T, forKey key: Key) throws {
        let stack = encoder.stack
        try stack.ensureSpace(2)
        LuaTableKey(key).push(to: stack)                                               // [.., key]
        try encoder.encoding.encode(value, path: codingPath + [key], depth: encoder.depth) // [.., key, v]
        lua_rawset(stack.state, table)                                                 // [..]
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }

    /// [..] -> [..], table[key] = value, without the dynamic checks of the generic path.
    private func encodePrimitive<P: LuaPrimitive>(_ value: P, forKey key: Key) throws {
        let stack = encoder.stack
        try stack.ensureSpace(2)
        LuaTableKey(key).push(to: stack)
        try value.push(to: stack, path: { codingPath + [key] })
        lua_rawset(stack.state, table)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.child(at: key, table: table, tableKey: LuaTableKey(key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.child(at: key, table: table, tableKey: LuaTableKey(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.child(at: LuaCodingKey.super, table: table, tableKey: .name("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.child(at: key, table: table, tableKey: LuaTableKey(key))
    }
}

struct LuaUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: LuaValueEncoder
    let table: Int32

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.count }

    /// Lua sequences cannot hold nil: the element is a hole.
    mutating func encodeNil() {
        encoder.count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeValue(value)
    }

    /// [..] -> [..], table[count + 1] = value
    private mutating func encodeValue<T: Encodable>(_ value: T) throws {
        let position = encoder.count
        try encoder.encoding.encode(value, path: codingPath + [LuaCodingKey(index: position)], depth: encoder.depth)
        lua_rawseti(encoder.stack.state, table, lua_Integer(position + 1))
        encoder.count += 1
    }

    mutating func encode(_ value: Bool) throws { try encodePrimitive(value) }
    mutating func encode(_ value: String) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Double) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Float) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int8) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int16) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int32) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int64) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt8) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt16) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt32) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt64) throws { try encodePrimitive(value) }

    /// [..] -> [..], table[count + 1] = value
    private mutating func encodePrimitive<P: LuaPrimitive>(_ value: P) throws {
        let position = encoder.count
        try encoder.stack.ensureSpace(1)
        try value.push(to: encoder.stack, path: { codingPath + [LuaCodingKey(index: position)] })
        lua_rawseti(encoder.stack.state, table, lua_Integer(position + 1))
        encoder.count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nextChild().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextChild().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nextChild()
    }

    /// An encoder for the next element.
    private mutating func nextChild() -> LuaValueEncoder {
        let position = encoder.count
        encoder.count += 1
        return encoder.child(at: LuaCodingKey(index: position), table: table, tableKey: .index(position + 1))
    }
}

struct LuaSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: LuaValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {
        precondition(encoder.slot == 0, "a single value container can encode one value")
        encoder.stack.pushNil()
        encoder.didPush()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeValue(value)
    }

    /// [..] -> [.., v]
    private mutating func encodeValue<T: Encodable>(_ value: T) throws {
        precondition(encoder.slot == 0, "a single value container can encode one value")
        try encoder.encoding.encode(value, path: codingPath, depth: encoder.depth)
        encoder.didPush()
    }

    /// [..] -> [.., v]
    private mutating func encodePrimitive<P: LuaPrimitive>(_ value: P) throws {
        precondition(encoder.slot == 0, "a single value container can encode one value")
        try encoder.stack.ensureSpace(1)
        try value.push(to: encoder.stack, path: { codingPath })
        encoder.didPush()
    }

    mutating func encode(_ value: Bool) throws { try encodePrimitive(value) }
    mutating func encode(_ value: String) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Double) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Float) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int8) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int16) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int32) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int64) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt8) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt16) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt32) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt64) throws { try encodePrimitive(value) }
}
