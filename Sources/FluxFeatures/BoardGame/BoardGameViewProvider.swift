import FluxTable

/// Maps a board game to a table that reads as the board: the instruction ("X's turn", "O wins") as the
/// header, one row per board row from the top, `.` for an empty cell — and the numbers a player types.
///
/// Rows are identified as `row-0`, `row-1`, … so a move updates exactly the row it was played in.
/// Each board row carries the game's move action with one payload per square (a choice a live view's
/// Left and Right keys pick), so choosing a square plays it.
public enum BoardGameViewProvider {
    /// Which numbers the table shows next to the board, as the game's move action takes them.
    public enum Numbering: Sendable {
        /// Each row's cell indices as its detail (tic-tac-toe: `placeToken {index = …}`).
        case cells
        /// A last, dimmed row with the column numbers under their columns (connect four:
        /// `dropToken {column = …}`).
        case columns
    }

    /// The board of `state`, numbered for its game.
    public static func tableViewModel(for state: BoardGameState, numbering: Numbering) -> TableViewModel {
        var cells = (0..<state.rows).map { row in
            CellViewModel(
                id: "row-\(row)",
                title: state.row(row).map { $0?.rawValue ?? "." }.joined(separator: " "),
                detail: numbering == .cells ? indices(ofRow: row, in: state) : nil,
                action: numbering == .cells ? TicTacToeActions.PlaceToken.name : ConnectFourActions.DropToken.name,
                payload: .array((0..<state.columns).map { column in
                    numbering == .cells ? ["index": .integer(row * state.columns + column)] : ["column": .integer(column)]
                })
            )
        }
        if numbering == .columns {
            let labels = (0..<state.columns).map { String($0 % 10) }.joined(separator: " ")
            cells.append(CellViewModel(id: "columns", title: labels, enabled: false))
        }
        return TableViewModel(sections: [
            SectionModel(id: "board", headerTitle: state.gameInstruction, headerHeight: 28, cells: cells),
        ])
    }

    private static func indices(ofRow row: Int, in state: BoardGameState) -> String {
        (row * state.columns ..< (row + 1) * state.columns).map(String.init).joined(separator: " ")
    }
}
