/// A state whose top-level fields can be read one at a time, by name, without running `encode(to:)`.
///
/// A scripting layer shows a store's state field by field: a Lua subscriber's `state.count` reads one
/// field. Without this, each read runs the state's `encode(to:)` until the field comes by; with it, the
/// read is a lookup of the name among ``fields`` and a call of that field's reader. The readers are made
/// once per type (``fields`` is read once, by whoever reads fields).
///
/// List every field `encode(to:)` writes, under the key it writes (mind `CodingKeys`), each reader
/// giving what is encoded under that key: a name the list does not have reads as no field at all. An
/// optional field that is nil reads as no value, as `encodeIfPresent` writes nothing. States that do not
/// adopt this protocol are read through `Encodable`.
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
