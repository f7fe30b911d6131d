/// Who registered a store, view, action or subscription: only its owner may define it again.
///
/// A plugin owns what its file (and the modules it requires) defines; what is typed at the prompt or
/// run as a script belongs to the interactive session; stores and views registered from Swift belong to
/// the Swift features.
public enum Owner: Hashable, Sendable, CustomStringConvertible {
    /// A plugin, by name and the file that is run.
    case plugin(name: String, file: String)
    /// What is typed at the prompt or run as a script.
    case session
    /// Stores and views registered from Swift.
    case swift

    /// How an error names it: `plugin p1 (plugins/p1/init.lua)`.
    public var description: String {
        switch self {
        case let .plugin(name, file): "plugin \(name) (\(file))"
        case .session: "the interactive session"
        case .swift: "the Swift features"
        }
    }
}

/// Registering a name that another owner holds.
struct OwnershipError: Error, CustomStringConvertible {
    let kind: String
    let name: String
    let owner: Owner

    var description: String { "\(kind) '\(name)' belongs to \(owner)" }
}
