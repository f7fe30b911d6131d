/// The state of a tic-tac-toe game: a 3×3 ``BoardGameState`` where three in a row win.
///
/// Cells are numbered 0…8 row by row from the top left:
/// ```
/// 0 1 2
/// 3 4 5
/// 6 7 8
/// ```
public typealias TicTacToeState = BoardGameState

extension BoardGameState {
    /// A new tic-tac-toe game, X to move.
    public static var ticTacToe: BoardGameState {
        BoardGameState(columns: 3, rows: 3, lineLength: 3)
    }
}
