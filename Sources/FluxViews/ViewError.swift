import Flux

/// A view name the registry does not know.
public enum ViewError: Error, Equatable, CustomStringConvertible {
    /// No view of this name; `known` lists the ones there are.
    case unknownView(String, known: [String])

    public var description: String {
        switch self {
        case let .unknownView(name, known):
            "unknown view '\(name)'" + (NameSuggestion.didYouMean(name, in: known).map { ": " + $0 } ?? "") + (known.isEmpty ? " (there are none)" : " (known: \(known.joined(separator: ", ")))")
        }
    }
}
