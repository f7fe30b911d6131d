/// Why an action could not be built from a name and a payload.
public enum ActionError: Error, Equatable, CustomStringConvertible {
    /// No action of this name is registered; `suggestions` are the registered names closest to it
    /// (``NameSuggestion``), made by ``unknownAction(_:among:)``.
    case unknownAction(String, suggestions: [String] = [])
    /// The payload does not decode into the action: `message` names the field
    /// (`field 'filter': expected a string, got nil`).
    case invalidPayload(action: String, message: String)
    /// Two Swift types declare the same action name: `registered` has it, `new` was refused.
    case conflictingTypes(action: String, registered: String, new: String)

    /// An unknown action `name`, with the names of `known` closest to it.
    public static func unknownAction(_ name: String, among known: some Sequence<String>) -> ActionError {
        .unknownAction(name, suggestions: NameSuggestion.closest(to: name, in: known))
    }

    public var description: String {
        switch self {
        case let .unknownAction(name, suggestions):
            let hint = suggestions.isEmpty ? "" : ": did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?"
            return "unknown action '\(name)'\(hint) (:actions lists them)"
        case let .invalidPayload(action, message): return "\(action): \(message)"
        case let .conflictingTypes(action, registered, new):
            return "action '\(action)' is already declared by \(registered); \(new) cannot take the same name"
        }
    }
}
