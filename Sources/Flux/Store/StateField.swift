/// One top-level field of a ``FieldReadable`` state: its name, as `encode(to:)` writes it, and how to
/// read it from a state.
///
/// Fields of type `Int`, `Double`, `Bool` and `String` keep their type, so a reader hands them on without
/// boxing them; any other `Encodable` value (an optional, an array, a nested value) is read as
/// `any Encodable`. A field given as a key path to a stored property (`\.count`) also knows where in the
/// state it is stored, so a reader may load it from there without calling anything.
public struct StateField<State>: Sendable {
    /// The field's key, as `encode(to:)` writes it (its `CodingKey`'s `stringValue`).
    public let name: String
    /// Reads the field from a state in place.
    @usableFromInline package let reader: Reader
    /// The field's byte offset in the state, when it is a stored property of a struct state named by a
    /// key path (`MemoryLayout.offset(of:)`); nil when only its reader knows how to read it.
    @usableFromInline package let offset: Int?

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
    public init(_ name: String, _ path: KeyPath<State, Int> & Sendable) {
        self.init(name, stored: path) { .int($0) }
    }

    /// A `Double` field.
    @inlinable
    public init(_ name: String, _ path: KeyPath<State, Double> & Sendable) {
        self.init(name, stored: path) { .double($0) }
    }

    /// A `Bool` field.
    @inlinable
    public init(_ name: String, _ path: KeyPath<State, Bool> & Sendable) {
        self.init(name, stored: path) { .bool($0) }
    }

    /// A `String` field.
    @inlinable
    public init(_ name: String, _ path: KeyPath<State, String> & Sendable) {
        self.init(name, stored: path) { .string($0) }
    }

    /// A field of any other `Encodable` type.
    @inlinable
    public init<Value: Encodable & SendableMetatype>(_ name: String, _ path: KeyPath<State, Value> & Sendable) {
        self.init(name, stored: path) { read in .encodable { read($0) } }
    }

    /// An `Int` field read by a function: `StateField("total") { $0.items.count }`.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> Int) {
        self.init(name: name, reader: .int { read($0.pointee) })
    }

    /// A `Double` field read by a function.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> Double) {
        self.init(name: name, reader: .double { read($0.pointee) })
    }

    /// A `Bool` field read by a function.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> Bool) {
        self.init(name: name, reader: .bool { read($0.pointee) })
    }

    /// A `String` field read by a function.
    @inlinable
    public init(_ name: String, _ read: @escaping @Sendable (State) -> String) {
        self.init(name: name, reader: .string { read($0.pointee) })
    }

    /// A field of any other `Encodable` type read by a function.
    @inlinable
    public init<Value: Encodable & SendableMetatype>(_ name: String, _ read: @escaping @Sendable (State) -> Value) {
        self.init(name: name, reader: .encodable { read($0.pointee) })
    }

    /// The field at `path`: loaded from its offset when it is stored at one, else through the key path.
    @inlinable
    init<Value>(_ name: String, stored path: KeyPath<State, Value> & Sendable,
                reader make: (@escaping @Sendable (UnsafePointer<State>) -> Value) -> Reader) {
        guard let offset = MemoryLayout<State>.offset(of: path) else {
            self.init(name: name, reader: make { $0.pointee[keyPath: path] })
            return
        }
        self.init(name: name, reader: make { (UnsafeRawPointer($0) + offset).assumingMemoryBound(to: Value.self).pointee },
                  offset: offset)
    }

    /// A field named `name` read by `reader`.
    @usableFromInline
    package init(name: String, reader: Reader, offset: Int? = nil) {
        self.name = name
        self.reader = reader
        self.offset = offset
    }
}
