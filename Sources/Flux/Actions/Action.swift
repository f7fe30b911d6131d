/// A value that describes an intended state change.
///
/// An action carries no logic: stores decide what it means. Every action type has a stable ``name``
/// (`"annotationFilter.toggleFilter"`) by which it is logged, replayed, completed in the shell and built
/// from Lua, and it is `Codable` so that its payload can travel through those channels.
///
/// ```swift
/// struct ToggleFilter: Action {
///     static let name = "annotationFilter.toggleFilter"
///     let filter: String
/// }
/// ```
public protocol Action: Codable {
    /// The stable name of this action type, `feature.verb` by convention.
    static var name: String { get }

    /// The name of this action; the type's ``name`` unless an action carries its own (as actions
    /// defined by scripts do).
    var name: String { get }

    /// Appends the action's payload as JSON, in UTF-8, to `bytes`, as an action log line holds it:
    /// `JSONEncoder`'s text with sorted keys, or the action's own (``ExactJSONPayload``). Given a
    /// default: an action writes its own only to be faster.
    func writePayloadJSON(into bytes: inout [UInt8]) throws
}

extension Action {
    public var name: String { Self.name }
}
