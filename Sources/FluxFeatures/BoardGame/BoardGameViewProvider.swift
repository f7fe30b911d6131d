import FluxTable

/// Maps a board game to a table that reads as the board: the instruction ("X's turn", "O wins") as the
/// header, one row per board row from the top, `.` for an empty cell — and the numbers a player types.
///
/// Rows are identified as `row-0`, `row-1`, … so a move updates exactly the row it was played in.
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
                detail: numbering == .cells ? indices(ofRow: row, in: state) : nil
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
