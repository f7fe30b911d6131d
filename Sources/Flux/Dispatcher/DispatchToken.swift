/// Identifies one registration with a ``Dispatcher``: pass it to ``Dispatcher/waitFor(_:)`` or
/// ``Dispatcher/unregister(_:)``.
public struct DispatchToken: Hashable, Sendable, CustomStringConvertible {
    /// The registration's number, unique within its dispatcher.
    public let id: Int
    /// The name the store or callback registered with.
    public let name: String

    public var description: String { "\(name)#\(id)" }
}
