import Flux

/// What tic-tac-toe players can do.
///
/// Scripts write `ticTacToe.placeToken {index = 4}` — the index is 0-based, row by row from the top
/// left (4 is the centre), as in ``TicTacToeState`` — and `ticTacToe.reset {}`.
public enum TicTacToeActions {
    /// The player to move puts a token on a cell.
    public struct PlaceToken: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "ticTacToe.placeToken"
        /// The cell, 0…8, row by row from the top left.
        public let index: Int

        /// Places a token on cell `index`.
        public init(index: Int) { self.index = index }
    }

    /// Starts a new game, X to move.
    public struct Reset: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "ticTacToe.reset"
        /// Starts over.
        public init() {}
    }

    /// The player to move puts a token on cell `index` (0…8): `dispatch(TicTacToeActions.placeToken(atIndex: 4))`.
    public static func placeToken(atIndex index: Int) -> PlaceToken { PlaceToken(index: index) }

    /// Starts a new game.
    public static func reset() -> Reset { Reset() }
}
