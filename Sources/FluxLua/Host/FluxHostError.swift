/// A name the host does not know.
public enum FluxHostError: Error, Equatable, CustomStringConvertible {
    /// No store of this name; `known` lists the ones there are.
    case unknownStore(String, known: [String])
    /// No view of this name; `known` lists the ones there are.
    case unknownView(String, known: [String])

    public var description: String {
        switch self {
        case let .unknownStore(name, known): return "unknown store '\(name)'" + Self.list(known)
        case let .unknownView(name, known): return "unknown view '\(name)'" + Self.list(known)
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? " (there are none)" : " (known: \(names.joined(separator: ", ")))"
    }
}
