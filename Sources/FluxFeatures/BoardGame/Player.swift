/// Who owns a token: the two players of a board game, X moving first.
public enum Player: String, CaseIterable, Codable, Sendable {
    /// The player who starts.
    case x = "X"
    /// The second player.
    case o = "O"

    /// The player who moves after this one.
    public var next: Player { self == .x ? .o : .x }
}
