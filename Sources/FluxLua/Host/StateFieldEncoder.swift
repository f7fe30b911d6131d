import CFluxLua
#if canImport(Glibc)
import Glibc
#endif
import CLua

/// Pushes one top-level field of an encodable state onto the Lua stack, without encoding the rest.
///
/// A state proxy answers `state.count` by running the state's `encode(to:)` against this encoder:
/// every field but the wanted one is skipped, so reading one field of a large state costs one field.
///
/// A class, so that handing it to `encode(to:)` as `any Encoder` needs no existential box, and the
/// containers share it without another allocation; ``read(_:of:onto:)`` reuses it from read to read.
final class StateFieldEncoder: Encoder {
    /// The field wanted: a key for keyed states, a 1-based position for array states.
    enum Wanted {
        /// The key's UTF-8 bytes, as Lua holds them (valid during the read): no Swift string is made per
        /// read.
        case key(UnsafeRawBufferPointer)
        case position(Int)
    }

    private(set) var wanted: Wanted
    private(set) var stack: LuaStack
    /// Whether the field was found and pushed.
    private(set) var found = false
    private var isReading = false
    let wrap: (LuaStack) throws -> Void

    init(wanted: Wanted, stack: LuaStack, wrap: @escaping (LuaStack) throws -> Void) {
        self.wanted = wanted
        self.stack = stack
        self.wrap = wrap
    }

    /// [..] -> [.., value]. Pushes the field `wanted` of the state at `state` (borrowed in place: it must
    /// stay there during the read), or nil when it has none.
    ///
    /// Uses this encoder unless it is in the middle of a read already (then a new one).
    func read(_ wanted: Wanted, of state: UnsafeMutablePointer<any Encodable>, onto stack: LuaStack) throws {
        guard !isReading else {
            return try StateFieldEncoder(wanted: wanted, stack: stack, wrap: wrap).read(wanted, of: state, onto: stack)
        }
        isReading = true
        defer { isReading = false }
        self.wanted = wanted
        self.stack = stack
        found = false
        do {
            try encode(state.pointee)
        } catch {
            guard found else { throw error } // once the field is pushed, `stop` ends the walk
        }
        if !found { stack.pushNil() }
    }

    /// Runs `state`'s `encode(to:)` on the state borrowed from its slot, not as `inout`: a read nested in
    /// another of the same state (a finalizer run by its allocation) is then a second borrow, which
    /// Swift allows, not a second overlapping modify access, which it does not.
    private func encode<State: Encodable>(_ state: borrowing State) throws {
        try state.encode(to: self)
    }

    /// Thrown once the wanted field is pushed, so the rest of the state is not walked. Made once:
    /// throwing an error made per read would allocate its box.
    private static let stop: any Error = Found()
    private struct Found: Error {}

    /// The keyed container of the last key type asked for, reused: making one per read instantiates
    /// its generic box type and allocates it. Its `Keyed` refers to this encoder weakly.
    private var keyedType: ObjectIdentifier?
    private var keyed: AnyObject?
    /// What nested containers write to: it wants nothing, so their fields are skipped.
    private lazy var skipper = StateFieldEncoder(wanted: .position(0), stack: stack, wrap: wrap)

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Pushes `value` as the field's value, and stops the walk.
    func deliver<T: Encodable>(_ value: T) throws {
        try Self.push(value, onto: stack, wrap: wrap)
        found = true // only once pushed: `read` swallows what is thrown after this
        throw Self.stop
    }

    /// [..] -> [.., value]. A field's value as a view shows it: tables go through `wrap` ([.., table] ->
    /// [.., proxy]). What a ``StateFieldTable`` reader pushes too, so both ways give the same.
    static func push<T: Encodable>(_ value: T, onto stack: LuaStack, wrap: (LuaStack) throws -> Void) throws {
        switch value {
        case let value as Int: stack.push(value)
        case let value as String: stack.push(value)
        case let value as Bool: stack.push(value)
        case let value as Double: stack.push(value)
        default:
            try LuaEncoder().push(value, to: stack)
            if stack.type(at: -1) == .table { try wrap(stack) }
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // KeyedEncodingContainer holds one reference whatever its key type: the cast changes no layout.
        if keyedType == ObjectIdentifier(Key.self), let keyed {
            return unsafeBitCast(keyed, to: KeyedEncodingContainer<Key>.self)
        }
        let container = KeyedEncodingContainer(Keyed<Key>(encoder: self))
        keyedType = ObjectIdentifier(Key.self)
        keyed = unsafeBitCast(container, to: AnyObject.self)
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(encoder: self) }
    func singleValueContainer() -> any SingleValueEncodingContainer { Single() }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        /// Weak: the encoder keeps this container (``container(keyedBy:)``), and only it uses it.
        weak var owner: StateFieldEncoder?
        var encoder: StateFieldEncoder { owner! }

        init(encoder: StateFieldEncoder) { owner = encoder }
        var codingPath: [any CodingKey] { [] }

        private func wants(_ key: Key) -> Bool {
            guard !encoder.found, case let .key(wanted) = encoder.wanted else { return false }
            var name = key.stringValue
            return name.utf8.count == wanted.count
                && name.withUTF8 { wanted.isEmpty || memcmp($0.baseAddress!, wanted.baseAddress!, wanted.count) == 0 }
        }

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if wants(key) { try encoder.deliver(value) }
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws { if wants(key) { try encoder.deliver(value) } }
        mutating func encode(_ value: String, forKey key: Key) throws { if wants(key) { try encoder.deliver(value) } }
        mutating func encode(_ value: Double, forKey key: Key) throws { if wants(key) { try encoder.deliver(value) } }
        mutating func encode(_ value: Float, forKey key: Key) throws { if wants(key) { try encoder.deliver(Double(value)) } }
        mutating func encode(_ value: Int, forKey key: Key) throws { if wants(key) { try encoder.deliver(value) } }
        mutating func encode(_ value: Int8, forKey key: Key) throws { if wants(key) { try encoder.deliver(Int(value)) } }
        mutating func encode(_ value: Int16, forKey key: Key) throws { if wants(key) { try encoder.deliver(Int(value)) } }
        mutating func encode(_ value: Int32, forKey key: Key) throws { if wants(key) { try encoder.deliver(Int(value)) } }
        mutating func encode(_ value: Int64, forKey key: Key) throws { if wants(key) { try encoder.deliver(Int(value)) } }
        mutating func encode(_ value: UInt, forKey key: Key) throws { if wants(key) { try encoder.deliver(value) } }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { if wants(key) { try encoder.deliver(Int(value)) } }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { if wants(key) { try encoder.deliver(Int(value)) } }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { if wants(key) { try encoder.deliver(Int(value)) } }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { if wants(key) { try encoder.deliver(value) } }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            // Hand-written encoders that nest containers: the field is not readable lazily.
            encoder.skipper.container(keyedBy: NestedKey.self)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(encoder: encoder.skipper)
        }
        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: StateFieldEncoder
        var codingPath: [any CodingKey] { [] }
        var count = 0

        mutating func encodeNil() throws { count += 1 }
        mutating func encode<T: Encodable>(_ value: T) throws {
            count += 1
            if !encoder.found, case let .position(position) = encoder.wanted, position == count {
                try encoder.deliver(value)
            }
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            count += 1
            return encoder.skipper.container(keyedBy: NestedKey.self)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            count += 1
            return Unkeyed(encoder: encoder.skipper)
        }
        mutating func superEncoder() -> any Encoder { encoder }
    }

    struct Single: SingleValueEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() throws {}
        mutating func encode<T: Encodable>(_ value: T) throws {}
    }
}
