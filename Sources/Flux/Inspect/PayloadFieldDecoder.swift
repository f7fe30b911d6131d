/// A `Decoder` that answers every request with a made-up value and records the fields a type's
/// `init(from:)` asks for at the top level, with their types: how ``PayloadFields`` reads a Swift
/// action's payload fields from its `Decodable` conformance.
struct PayloadFieldDecoder: Decoder {
    /// What the decoding asked for.
    final class Recorder {
        /// Whether the top level was read as one value or a list, not as fields (a script's action,
        /// which takes any table).
        var isRaw = false
        var fields: [PayloadFields.Field] = []

        func record(_ name: String, _ type: String, optional: Bool) {
            guard !fields.contains(where: { $0.name == name }) else { return }
            fields.append(.init(name: name, type: type, isOptional: optional))
        }
    }

    /// Records the shape of one nested value: the Lua type its decoding asked for first.
    final class Shape {
        var type: String?
        func set(_ name: String) { if type == nil { type = name } }
    }

    let recorder: Recorder?
    let shape: Shape?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(recorder: Recorder, codingPath: [any CodingKey]) {
        self.recorder = recorder
        shape = nil
        self.codingPath = codingPath
    }

    private init(shape: Shape, codingPath: [any CodingKey]) {
        recorder = nil
        self.shape = shape
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        shape?.set("table")
        return KeyedDecodingContainer(Keyed<Key>(recorder: recorder, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        recorder?.isRaw = true
        shape?.set("list")
        return Unkeyed(codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        recorder?.isRaw = true
        return Single(shape: shape, codingPath: codingPath)
    }

    /// The Lua type name of a primitive Swift type, or nil for any other.
    static func luaType(of type: Any.Type) -> String? {
        switch type {
        case is Bool.Type: "boolean"
        case is String.Type: "string"
        case is Double.Type, is Float.Type: "number"
        case is any BinaryInteger.Type: "integer"
        default: nil
        }
    }

    /// A made-up value of `type`, and the Lua type its decoding asked for.
    ///
    /// - Throws: when no value could be made up (an enum whose cases the made-up raw value is none of),
    ///   with the type found until then.
    static func sample<T: Decodable>(_ type: T.Type, codingPath: [any CodingKey]) throws(Unmade) -> (T, String) {
        if let value = primitive(type) { return (value, luaType(of: type)!) }
        let shape = Shape()
        if let cases = type as? any CaseIterable.Type, let first = firstCase(of: cases) as? T {
            _ = try? T(from: PayloadFieldDecoder(shape: shape, codingPath: codingPath))
            return (first, shape.type ?? "value")
        }
        do {
            return (try T(from: PayloadFieldDecoder(shape: shape, codingPath: codingPath)), shape.type ?? "value")
        } catch {
            throw Unmade(type: shape.type ?? "value", underlying: error)
        }
    }

    private static func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { type.allCases.first }

    /// A value that could not be made up, and the Lua type its decoding asked for.
    struct Unmade: Error {
        let type: String
        let underlying: any Error
    }

    static func primitive<T>(_ type: T.Type) -> T? {
        switch type {
        case is Bool.Type: false as? T
        case is String.Type: "" as? T
        case is Double.Type: 0.0 as? T
        case is Float.Type: Float(0) as? T
        case is Int.Type: 0 as? T
        case is Int8.Type: Int8(0) as? T
        case is Int16.Type: Int16(0) as? T
        case is Int32.Type: Int32(0) as? T
        case is Int64.Type: Int64(0) as? T
        case is UInt.Type: UInt(0) as? T
        case is UInt8.Type: UInt8(0) as? T
        case is UInt16.Type: UInt16(0) as? T
        case is UInt32.Type: UInt32(0) as? T
        case is UInt64.Type: UInt64(0) as? T
        default: nil
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder?
        let codingPath: [any CodingKey]
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        /// A made-up value for the field `key`, which is recorded with its type even when no value
        /// could be made.
        private func field<T: Decodable>(_ type: T.Type, _ key: Key, optional: Bool) throws(Unmade) -> T {
            do {
                let (value, name) = try PayloadFieldDecoder.sample(type, codingPath: codingPath + [key])
                recorder?.record(key.stringValue, name, optional: optional)
                return value
            } catch {
                recorder?.record(key.stringValue, error.type, optional: optional)
                throw error
            }
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            do {
                return try field(type, key, optional: false)
            } catch {
                // The decoding stops here, so later fields stay unknown.
                throw error.underlying
            }
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            // An optional field can be left out: the decoding goes on to the next.
            try? field(type, key, optional: true)
        }

        // The standard library's own versions of these would ask `decodeNil` and lose the `?`.
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(Box<Bool>.self, forKey: key)?.value }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(Box<String>.self, forKey: key)?.value }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(Box<Double>.self, forKey: key)?.value }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeIfPresent(Box<Float>.self, forKey: key)?.value }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(Box<Int>.self, forKey: key)?.value }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(Box<Int64>.self, forKey: key)?.value }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeIfPresent(Box<Int32>.self, forKey: key)?.value }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeIfPresent(Box<UInt>.self, forKey: key)?.value }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            recorder?.record(key.stringValue, "table", optional: false)
            return KeyedDecodingContainer(Keyed<NestedKey>(recorder: nil, codingPath: codingPath + [key]))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            recorder?.record(key.stringValue, "list", optional: false)
            return Unkeyed(codingPath: codingPath + [key])
        }

        func superDecoder() throws -> any Decoder { PayloadFieldDecoder(shape: Shape(), codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { PayloadFieldDecoder(shape: Shape(), codingPath: codingPath + [key]) }
    }

    /// A primitive decoded through the generic path, so that ``Keyed/decodeIfPresent(_:forKey:)`` sees it.
    private struct Box<Value: Decodable>: Decodable {
        let value: Value
        init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
    }

    /// An empty list: nothing inside a list is a top-level field.
    private struct Unkeyed: UnkeyedDecodingContainer {
        let codingPath: [any CodingKey]
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }

        private func end() -> DecodingError {
            .valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "a made-up list is empty"))
        }

        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> { throw end() }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
        mutating func superDecoder() throws -> any Decoder { throw end() }
    }

    private struct Single: SingleValueDecodingContainer {
        let shape: Shape?
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool {
            false
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if let value = PayloadFieldDecoder.primitive(type) {
                shape?.set(PayloadFieldDecoder.luaType(of: type)!)
                return value
            }
            return try T(from: PayloadFieldDecoder(shape: shape ?? Shape(), codingPath: codingPath))
        }
    }
}
