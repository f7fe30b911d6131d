/// Why an action could not be built from a name and a payload.
public enum ActionError: Error, Equatable, CustomStringConvertible {
    /// No action of this name is registered.
    case unknownAction(String)
    /// The payload does not decode into the action: `message` names the field
    /// (`field 'filter': expected a string, got nil`).
    case invalidPayload(action: String, message: String)
    /// Two Swift types declare the same action name: `registered` has it, `new` was refused.
    case conflictingTypes(action: String, registered: String, new: String)

    public var description: String {
        switch self {
        case let .unknownAction(name): return "unknown action '\(name)'"
        case let .invalidPayload(action, message): return "\(action): \(message)"
        case let .conflictingTypes(action, registered, new):
            return "action '\(action)' is already declared by \(registered); \(new) cannot take the same name"
        }
    }
}
