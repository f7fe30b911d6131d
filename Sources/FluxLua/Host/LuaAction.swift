import Flux

/// An action defined by a script: a name a Lua store answers to, and a payload table.
///
/// Its payload is kept as a ``LuaValue`` so that it can be logged as JSON and replayed into fresh
/// stores exactly like a Swift action.
public struct LuaAction: Action {
    /// Unused: each script-defined action carries its own ``name``.
    public static let name = "lua.action"

    /// The action's name, as given to `flux.store{ on = { [name] = … } }`.
    public let name: String
    /// The payload table (an empty table when none was given).
    public let payload: LuaValue

    /// An action named `name` carrying `payload`.
    public init(name: String, payload: LuaValue) {
        self.name = name
        self.payload = payload
    }

    /// Decodes `{name = …, payload = …}`; the registry builds script actions from a bare payload instead.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        name = try container.decode(String.self, forKey: .name)
        payload = try container.decodeIfPresent(LuaValue.self, forKey: .payload) ?? .table([:])
    }

    /// Encodes the payload alone, as a Swift action encodes its fields.
    public func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
    }

    private enum Keys: String, CodingKey { case name, payload }
}
