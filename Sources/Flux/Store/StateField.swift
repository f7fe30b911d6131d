/// One top-level field of a ``FieldReadable`` state: its name, as `encode(to:)` writes it, and how to
/// read it from a state.
///
/// Fields of type `Int`, `Double`, `Bool` and `String` keep their type, so a reader hands them on without
/// boxing them; any other `Encodable` value (an optional, an array, a nested value) is read as
/// `any Encodable`.
public struct StateField<State>: Sendable {
    /// The field's key, as `encode(to:)` writes it (its `CodingKey`'s `stringValue`).
    public let name: String
    /// Reads the field from a state in place.
    @usableFromInline package let reader: Reader

    /// How a field is read from the state a pointer points at: made where the state's type is known (the
    /// initializers are inlined there), so reading one field copies nothing else.
    @usableFromInline package enum Reader: Sendable {
        case int(@Sendable (UnsafePointer<State>) -> Int)
        case double(@Sendable (UnsafePointer<State>) -> Double)
        case bool(@Sendable (UnsafePointer<State>) -> Bool)
        case string(@Sendable (UnsafePointer<State>) -> String)
        case encodable(@Sendable (UnsafePointer<State>) -> any Encodable)
    }

    /// An `Int` field: `StateField("count", \.count)`.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> Int) {
        self.init(name: name, reader: .int { read($0.pointee) })
    }

    /// A `Double` field.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> Double) {
        self.init(name: name, reader: .double { read($0.pointee) })
    }

    /// A `Bool` field.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> Bool) {
        self.init(name: name, reader: .bool { read($0.pointee) })
    }

    /// A `String` field.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> String) {
        self.init(name: name, reader: .string { read($0.pointee) })
    }

    /// A field of any other `Encodable` type.
    @inlinable
    public init<Value: Encodable & SendableMetatype>(_ name: String, _ read: @escaping @Sendable (State) -> Value) {
        self.init(name: name, reader: .encodable { read($0.pointee) })
    }

    /// A field named `name` read by `reader`.
    @usableFromInline
    package init(name: String, reader: Reader) {
        self.name = name
        self.reader = reader
    }
}
