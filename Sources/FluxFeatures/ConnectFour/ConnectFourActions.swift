import Flux

/// What connect-four players can do.
///
/// Scripts write `connectFour.dropToken {column = 3}` — the column is 0-based from the left (3 is
/// the middle) — and `connectFour.reset {}`.
public enum ConnectFourActions {
    /// The player to move drops a token into a column; it lands on the lowest empty cell.
    public struct DropToken: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "connectFour.dropToken"
        /// The column, 0…6 from the left.
        public let column: Int

        /// Drops a token into `column`.
        public init(column: Int) { self.column = column }
    }

    /// Starts a new game, X to move.
    public struct Reset: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "connectFour.reset"
        /// Starts over.
        public init() {}
    }

    /// The player to move drops a token into `column` (0…6).
    public static func dropToken(inColumn column: Int) -> DropToken { DropToken(column: column) }

    /// Starts a new game.
    public static func reset() -> Reset { Reset() }
}
