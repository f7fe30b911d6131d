/// The fields an action's payload takes, with their types: `{index: integer}`.
///
/// Types are named as a Lua script would write them: `integer`, `number`, `string`, `boolean`,
/// `table`, `list`; a `?` marks a field that may be left out. A Swift action's fields are read from
/// its `Decodable` conformance (``init(deriving:registry:)``); a script declares its own.
public struct PayloadFields: Equatable, Sendable, CustomStringConvertible {
    /// One field.
    public struct Field: Equatable, Sendable {
        public let name: String
        /// The Lua type name: `integer`, `string`, …
        public let type: String
        /// Whether the payload may leave it out.
        public let isOptional: Bool

        public init(name: String, type: String, isOptional: Bool = false) {
            self.name = name
            self.type = type
            self.isOptional = isOptional
        }
    }

    /// The fields in the order the action reads them (a declaration's, sorted by name).
    public let fields: [Field]

    public init(_ fields: [Field]) {
        self.fields = fields
    }

    /// Fields from a script's declaration, `{title = "string", due = "number?"}`: a trailing `?` makes
    /// a field optional. Sorted by name, since a Lua table has no order.
    public init(declared: [String: String]) {
        fields = declared.sorted { $0.key < $1.key }.map { name, type in
            type.hasSuffix("?") ? Field(name: name, type: String(type.dropLast()), isOptional: true)
                                : Field(name: name, type: type)
        }
    }

    /// The fields the action called `name` reads from its payload, found by decoding it once from a
    /// decoder that records what is asked of it. Nil when the action does not read a keyed payload
    /// (a script's action, which takes any table).
    public init?(deriving name: String, registry: ActionRegistry) {
        guard registry.contains(name) else { return nil }
        let recorder = PayloadFieldDecoder.Recorder()
        // The action's own checks may refuse the made-up values; the fields asked for until then count.
        _ = try? registry.decode(name, from: PayloadFieldDecoder(recorder: recorder, codingPath: []))
        guard !recorder.isRaw else { return nil }
        self.init(recorder.fields)
    }

    /// `{index: integer}`, `{title: string, due: number?}`, `{}`.
    public var description: String {
        "{" + fields.map { "\($0.name): \($0.type)\($0.isOptional ? "?" : "")" }.joined(separator: ", ") + "}"
    }
}
