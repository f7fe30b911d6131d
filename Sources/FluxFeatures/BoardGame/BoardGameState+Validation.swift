import Flux

/// A board game read from outside must be one ``BoardGameState/place(at:)`` could have reached in shape:
/// a board of `columns × rows` cells, a line length that fits, a winning line on the board held by the
/// winner, and a turn and instruction that agree with the winner.
extension BoardGameState: ValidatedState {
    public func validate() throws {
        guard columns > 0, rows > 0 else { throw StateValidationError("a board of \(columns) × \(rows) has no cells") }
        guard (1 ... max(columns, rows)).contains(lineLength) else {
            throw StateValidationError("a line of \(lineLength) does not fit a board of \(columns) × \(rows)")
        }
        let (cells, overflow) = columns.multipliedReportingOverflow(by: rows)
        guard !overflow, board.count == cells else {
            throw StateValidationError("the board has \(board.count) cells; \(columns) × \(rows) needs \(overflow ? "more" : String(cells))")
        }
        if let outside = winningLine.first(where: { !board.indices.contains($0) }) {
            throw StateValidationError("the winning line names cell \(outside), off the board of \(board.count) cells")
        }
        if let winner {
            guard playerToMove == nil else { throw StateValidationError("\(winner.rawValue) has won, yet \(playerToMove!.rawValue) is to move") }
            guard winningLine.count >= lineLength, winningLine.allSatisfy({ board[$0] == winner }) else {
                throw StateValidationError("\(winner.rawValue) has won without a line of \(lineLength) of theirs on the board")
            }
        } else {
            guard winningLine.isEmpty else { throw StateValidationError("a winning line without a winner") }
            if playerToMove == nil, board.contains(where: { $0 == nil }) {
                throw StateValidationError("nobody is to move, yet the board has empty cells and no winner")
            }
        }
        let expected = winner.map { "\($0.rawValue) wins" } ?? playerToMove.map { "\($0.rawValue)'s turn" } ?? "Draw"
        guard gameInstruction == expected else {
            throw StateValidationError("the instruction reads \"\(gameInstruction)\" where the game says \"\(expected)\"")
        }
    }
}
