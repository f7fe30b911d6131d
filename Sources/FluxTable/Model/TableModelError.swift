/// Why a table view model is not usable: its ids would not identify its rows or sections.
public enum TableModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Rows in one section share ids; `ids` lists each repeated id once, in order of appearance.
    case duplicateCellIDs(section: String, ids: [String])
    /// Sections share ids; `ids` lists each repeated id once, in order of appearance.
    case duplicateSectionIDs(ids: [String])

    /// A sentence naming the repeated ids.
    public var description: String {
        switch self {
        case .duplicateCellIDs(let section, let ids):
            "section '\(section)' has duplicate cell ids: \(Self.list(ids))"
        case .duplicateSectionIDs(let ids):
            "duplicate section ids: \(Self.list(ids))"
        }
    }

    private static func list(_ ids: [String]) -> String {
        ids.map { "'\($0)'" }.joined(separator: ", ")
    }
}
