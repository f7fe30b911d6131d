import Flux

/// A game of placing tokens on a grid until one player has a line of ``lineLength`` in a row —
/// horizontally, vertically or diagonally — or the grid is full: tic-tac-toe (3×3, 3 in a row) and
/// connect four (7×6, 4 in a row) are both this game.
///
/// It is both the game model and the state views render: board, player to move, winner and
/// instruction change together in one ``place(at:)``, so they can never disagree and one move
/// undoes as one step.
///
/// Cells are numbered from 0, row by row from the top left: cell `row * columns + column`.
public struct BoardGameState: Codable, Equatable, Sendable, FieldReadable {
    /// How many cells a row has.
    public let columns: Int
    /// How many rows the board has.
    public let rows: Int
    /// How many tokens in a row win.
    public let lineLength: Int
    /// Every cell, row by row from the top left; nil is empty.
    public private(set) var board: [Player?]
    /// Whose turn it is; nil once the game is over.
    public private(set) var playerToMove: Player?
    /// Who won, if anyone has.
    public private(set) var winner: Player?
    /// The cells of the winning line, ascending; empty until someone wins.
    public private(set) var winningLine: [Int]
    /// What the players read: "X's turn", "O wins" or "Draw".
    public private(set) var gameInstruction: String

    /// Every field, read one at a time (a Lua subscriber's `state.gameInstruction`) without encoding the
    /// board.
    public static let fields: [StateField<Self>] = [
        StateField("columns", \.columns),
        StateField("rows", \.rows),
        StateField("lineLength", \.lineLength),
        StateField("board", \.board),
        StateField("playerToMove", \.playerToMove),
        StateField("winner", \.winner),
        StateField("winningLine", \.winningLine),
        StateField("gameInstruction", \.gameInstruction),
    ]

    /// A new game on an empty `columns`×`rows` board, X to move.
    public init(columns: Int, rows: Int, lineLength: Int) {
        precondition(columns > 0 && rows > 0 && lineLength > 0, "a board needs cells and a line length")
        self.columns = columns
        self.rows = rows
        self.lineLength = lineLength
        board = Array(repeating: nil, count: columns * rows)
        playerToMove = .x
        winner = nil
        winningLine = []
        gameInstruction = Self.instruction(toMove: .x, winner: nil)
    }

    /// Whether the game has ended in a win or a draw.
    public var isOver: Bool { playerToMove == nil }

    /// Whether the game ended with a full board and no winner.
    public var isDraw: Bool { isOver && winner == nil }

    /// The cells of row `row` (0 is the top), left to right.
    public func row(_ row: Int) -> ArraySlice<Player?> {
        board[row * columns ..< (row + 1) * columns]
    }

    /// The token in `column` (from the left) of `row` (from the top).
    public subscript(column column: Int, row row: Int) -> Player? {
        board[row * columns + column]
    }

    /// Puts the next token on cell `index`, then decides whether the game is won, drawn or goes on.
    ///
    /// - Throws: ``GameError`` when the game is over, the index is off the board or the cell is taken;
    ///   the state is then unchanged.
    public mutating func place(at index: Int) throws(GameError) {
        guard let player = playerToMove else { throw .gameOver(outcome: gameInstruction) }
        guard board.indices.contains(index) else { throw .indexOutOfRange(index, count: board.count) }
        if let owner = board[index] { throw .occupied(index, by: owner) }

        board[index] = player
        let line = BoardLines.line(through: index, of: player, in: self)
        if line.count >= lineLength {
            winner = player
            winningLine = line
            playerToMove = nil
        } else if board.allSatisfy({ $0 != nil }) {
            playerToMove = nil
        } else {
            playerToMove = player.next
        }
        gameInstruction = Self.instruction(toMove: playerToMove, winner: winner)
    }

    /// The cell a token dropped into `column` lands on: the lowest empty one, as gravity has it.
    ///
    /// - Throws: ``GameError`` when the game is over, the column is off the board or full.
    public func dropIndex(inColumn column: Int) throws(GameError) -> Int {
        guard !isOver else { throw .gameOver(outcome: gameInstruction) }
        guard (0..<columns).contains(column) else { throw .columnOutOfRange(column, count: columns) }
        guard let row = (0..<rows).reversed().first(where: { self[column: column, row: $0] == nil }) else {
            throw .columnFull(column)
        }
        return row * columns + column
    }

    private static func instruction(toMove: Player?, winner: Player?) -> String {
        if let winner { return "\(winner.rawValue) wins" }
        if let toMove { return "\(toMove.rawValue)'s turn" }
        return "Draw"
    }
}
