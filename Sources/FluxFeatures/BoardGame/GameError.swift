/// Why a move was refused. A refused move changes nothing: the board, the player to move and the
/// instruction stay as they were.
public enum GameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The cell index is not on the board; cells are numbered from 0 to `count - 1`.
    case indexOutOfRange(Int, count: Int)
    /// The column is not on the board; columns are numbered from 0 to `count - 1`.
    case columnOutOfRange(Int, count: Int)
    /// The cell already holds a token.
    case occupied(Int, by: Player)
    /// The column has no empty cell left.
    case columnFull(Int)
    /// The game has ended; `outcome` is its instruction ("X wins", "Draw").
    case gameOver(outcome: String)

    /// The message the shell prints.
    public var description: String {
        switch self {
        case let .indexOutOfRange(index, count):
            return "cell \(index) is not on the board; cells are numbered 0…\(count - 1), row by row from the top left"
        case let .columnOutOfRange(column, count):
            return "column \(column) is not on the board; columns are numbered 0…\(count - 1) from the left"
        case let .occupied(index, player):
            return "cell \(index) is already taken by \(player.rawValue)"
        case let .columnFull(column):
            return "column \(column) is full"
        case let .gameOver(outcome):
            return "the game is over (\(outcome)); reset to play again"
        }
    }
}
