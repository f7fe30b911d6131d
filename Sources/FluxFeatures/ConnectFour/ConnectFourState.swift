/// The state of a connect-four game: a 7×6 ``BoardGameState`` where four in a row win and tokens
/// fall to the lowest empty cell of a column.
///
/// Columns are numbered 0…6 from the left; cells, as in every board game, row by row from the top left.
public typealias ConnectFourState = BoardGameState

extension BoardGameState {
    /// A new connect-four game, X to move.
    public static var connectFour: BoardGameState {
        BoardGameState(columns: 7, rows: 6, lineLength: 4)
    }
}
