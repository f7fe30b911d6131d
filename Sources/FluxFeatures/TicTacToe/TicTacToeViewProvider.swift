import FluxTable

/// Shows a tic-tac-toe game: the instruction as header, the three board rows, each with the indices
/// `ticTacToe.placeToken` takes for its cells.
///
/// ```
/// X's turn
///   X . O  0 1 2
///   . X .  3 4 5
///   . . O  6 7 8
/// ```
public enum TicTacToeViewProvider {
    /// The board of `state`.
    public static func tableViewModel(for state: TicTacToeState) -> TableViewModel {
        BoardGameViewProvider.tableViewModel(for: state, numbering: .cells)
    }
}
