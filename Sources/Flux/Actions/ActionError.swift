/// Why an action could not be built from a name and a payload.
public enum ActionError: Error, Equatable, CustomStringConvertible {
    /// No action of this name is registered.
    case unknownAction(String)
    /// The payload does not decode into the action: `message` names the field
    /// (`field 'filter': expected a string, got nil`).
    case invalidPayload(action: String, message: String)

    public var description: String {
        switch self {
        case let .unknownAction(name): return "unknown action '\(name)'"
        case let .invalidPayload(action, message): return "\(action): \(message)"
        }
    }
}
