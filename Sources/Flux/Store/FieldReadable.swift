/// A state whose top-level fields can be read one at a time, by name, without running `encode(to:)`.
///
/// A scripting layer shows a store's state field by field: a Lua subscriber's `state.count` reads one
/// field. Without this, each read runs the state's `encode(to:)` until the field comes by; with it, the
/// read is a lookup of the name among ``fields`` and a call of that field's reader. The readers are made
/// once per type (``fields`` is read once, by whoever reads fields).
///
/// Each field must be named, and read, as `encode(to:)` writes it: a reader gives what is encoded under
/// its name, and a name the state does not encode has no reader. States that do not adopt this protocol
/// are read through `Encodable`, as are the fields a state leaves out.
///
/// ```swift
/// struct CounterState: Codable, FieldReadable {
///     var count = 0
///     var items: [String] = []
///
///     static let fields: [StateField<Self>] = [
///         StateField("count", \.count),
///         StateField("items", \.items),
///     ]
/// }
/// ```
public protocol FieldReadable: Encodable {
    /// The state's top-level fields as `encode(to:)` writes them, each with its reader.
    static var fields: [StateField<Self>] { get }
}
