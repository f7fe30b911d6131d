/// The `Encoder` behind ``StateValue/init(encoding:)``: it builds the tree of what a value encodes.
struct StateValueEncoder: Encoder {
    /// Where one value goes: a leaf, the items of an unkeyed container or the fields of a keyed one.
    final class Slot {
        var value = StateValue.null
        var items: [Slot]?
        var fields: [StateValue.Key: Slot]?

        var resolved: StateValue {
            if let items { return .array(items.map(\.resolved)) }
            if let fields {
                return .object(fields.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.resolved) })
            }
            return value
        }
    }

    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot.fields == nil { slot.fields = [:] }
        return KeyedEncodingContainer(Keyed<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot.items == nil { slot.items = [] }
        return Unkeyed(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(slot: slot, codingPath: codingPath) }

    /// Encodes `value` into `slot`: numbers, strings and booleans as leaves, anything else through its
    /// own `encode(to:)`.
    static func encode(_ value: some Encodable, into slot: Slot, codingPath: [any CodingKey]) throws {
        switch value {
        case let value as Bool: slot.value = .bool(value)
        case let value as String: slot.value = .string(value)
        case let value as Double: slot.value = .number(value)
        case let value as Float: slot.value = .number(Double(value))
        case let value as any BinaryInteger: slot.value = Int(exactly: value).map(StateValue.integer) ?? .number(Double(value))
        default: try value.encode(to: StateValueEncoder(slot: slot, codingPath: codingPath))
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let slot: Slot
        let codingPath: [any CodingKey]

        private func child(_ key: Key) -> Slot {
            let child = Slot()
            slot.fields![StateValue.Key(key)] = child
            return child
        }

        mutating func encodeNil(forKey key: Key) throws { _ = child(key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try StateValueEncoder.encode(value, into: child(key), codingPath: codingPath + [key])
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            StateValueEncoder(slot: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            StateValueEncoder(slot: child(key), codingPath: codingPath + [key]).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            StateValueEncoder(slot: child(Key(stringValue: "super")!), codingPath: codingPath)
        }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            StateValueEncoder(slot: child(key), codingPath: codingPath + [key])
        }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        let slot: Slot
        let codingPath: [any CodingKey]
        var count: Int { slot.items!.count }

        private func next() -> Slot {
            let child = Slot()
            slot.items!.append(child)
            return child
        }

        mutating func encodeNil() throws { _ = next() }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try StateValueEncoder.encode(value, into: next(), codingPath: codingPath)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            StateValueEncoder(slot: next(), codingPath: codingPath).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            StateValueEncoder(slot: next(), codingPath: codingPath).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { StateValueEncoder(slot: next(), codingPath: codingPath) }
    }

    private struct Single: SingleValueEncodingContainer {
        let slot: Slot
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { slot.value = .null }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try StateValueEncoder.encode(value, into: slot, codingPath: codingPath)
        }
    }
}
