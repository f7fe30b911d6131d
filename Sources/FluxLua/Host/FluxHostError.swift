import Flux

/// A name the host does not know.
public enum FluxHostError: Error, Equatable, CustomStringConvertible {
    /// No store of this name; `known` lists the ones there are.
    case unknownStore(String, known: [String])
    /// The host is gone: its VM lives on (a finalizer runs late, a script kept a function).
    case closed

    public var description: String {
        switch self {
        case let .unknownStore(name, known):
            return "unknown store '\(name)'" + (NameSuggestion.didYouMean(name, in: known).map { ": " + $0 } ?? "") + Self.list(known)
        case .closed: return "the flux host is closed"
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? " (there are none)" : " (known: \(names.joined(separator: ", ")))"
    }
}
