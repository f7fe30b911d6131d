import Flux
import FluxFeatures
import FluxTable
import Testing

/// The boards as a terminal shows them.
@Suite("Board view providers")
struct BoardViewProviderSpec {
    let dispatcher = Dispatcher()
    let renderer = TableRenderer(options: RenderOptions(width: 40, color: false, unicode: true))

    @Test("tic-tac-toe → shows the instruction, the board rows and the indices to type")
    func ticTacToe() throws {
        let store = TicTacToeStore(dispatcher: dispatcher)
        try dispatcher.dispatch(TicTacToeActions.placeToken(atIndex: 4))
        try dispatcher.dispatch(TicTacToeActions.placeToken(atIndex: 2))

        let text = renderer.render(TicTacToeViewProvider.tableViewModel(for: store.state))

        #expect(text == """

            X's turn
              . . O  0 1 2
              . X .  3 4 5
              . . .  6 7 8

            """)
    }

    @Test("a move → updates exactly the row it was played in")
    func moveUpdatesOneRow() throws {
        let store = TicTacToeStore(dispatcher: dispatcher)
        let before = TicTacToeViewProvider.tableViewModel(for: store.state)

        try dispatcher.dispatch(TicTacToeActions.placeToken(atIndex: 7))

        let changes = TableDiff(from: before, to: TicTacToeViewProvider.tableViewModel(for: store.state))
        #expect(changes.rowUpdates.map(\.cell.id) == ["row-2"])
        #expect(changes.sectionUpdates.map(\.headerTitle) == ["O's turn"])
    }

    @Test("connect four → shows dropped tokens at the bottom and the column numbers under the board")
    func connectFour() throws {
        let store = ConnectFourStore(dispatcher: dispatcher)
        for column in [0, 1, 0, 1, 0, 1, 0] {
            try dispatcher.dispatch(ConnectFourActions.dropToken(inColumn: column))
        }

        let model = ConnectFourViewProvider.tableViewModel(for: store.state)
        let rows = model.sections[0].cells

        #expect(model.sections[0].headerTitle == "X wins")
        #expect(rows.map(\.title).suffix(5) == [
            "X . . . . . .",
            "X O . . . . .",
            "X O . . . . .",
            "X O . . . . .",
            "0 1 2 3 4 5 6",
        ])
        #expect(rows.count == 7)
        #expect(rows.last?.enabled == false)
    }
}
