import Flux
import FluxFeatures
import Testing

/// Connect four: the tic-tac-toe store's shape, with gravity and four in a row.
@Suite("Connect-four store")
struct ConnectFourSpec {
    let dispatcher = Dispatcher()
    let store: ConnectFourStore
    let view: StateRecorder<ConnectFourState>

    init() {
        store = ConnectFourStore(dispatcher: dispatcher)
        view = StateRecorder(store)
    }

    func drop(_ columns: Int...) throws {
        for column in columns { try dispatcher.dispatch(ConnectFourActions.dropToken(inColumn: column)) }
    }

    /// The token at `column` (from the left) of `row` (counted from the bottom, as players see it).
    func token(_ column: Int, _ rowFromBottom: Int) -> Player? {
        view.last[column: column, row: 5 - rowFromBottom]
    }

    @Test("a new game → has an empty 7×6 board with X to move")
    func newGame() {
        #expect(view.last.columns == 7)
        #expect(view.last.rows == 6)
        #expect(view.last.board.allSatisfy { $0 == nil })
        #expect(view.last.gameInstruction == "X's turn")
    }

    @Test("dropping tokens → they land on the lowest empty cell of the column")
    func gravity() throws {
        try drop(3, 3, 4)

        #expect(token(3, 0) == .x)
        #expect(token(3, 1) == .o)
        #expect(token(4, 0) == .x)
        #expect(view.last.board.compactMap { $0 }.count == 3)
        #expect(view.last.gameInstruction == "O's turn")
    }

    @Test("four in a column → wins")
    func verticalWin() throws {
        try drop(0, 1, 0, 1, 0, 1, 0)

        #expect(view.last.gameInstruction == "X wins")
        #expect(view.last.winningLine == [14, 21, 28, 35])
    }

    @Test("four on a rising diagonal → wins")
    func diagonalWin() throws {
        try drop(0, 1, 1, 2, 2, 3, 2, 3, 3, 6)
        #expect(view.last.winner == nil)

        try drop(3)

        #expect(view.last.winner == .x)
        #expect([token(0, 0), token(1, 1), token(2, 2), token(3, 3)] == [.x, .x, .x, .x])
        #expect(view.last.winningLine == [17, 23, 29, 35])
    }

    @Test("four in a row across → wins for O too")
    func horizontalWin() throws {
        try drop(0, 1, 0, 2, 6, 3, 6, 4)

        #expect(view.last.gameInstruction == "O wins")
        #expect(view.last.winningLine == [36, 37, 38, 39])
    }

    @Test("dropping into a full column → is refused and changes nothing")
    func fullColumn() throws {
        try drop(2, 2, 2, 2, 2, 2)
        let before = store.state

        let refused = refusal { try drop(2) }

        #expect(refused?.error as? GameError == .columnFull(2))
        #expect(store.state == before)
    }

    @Test("dropping outside the board → is refused, giving the valid columns", arguments: [-1, 7])
    func offTheBoard(column: Int) throws {
        let refused = refusal { try drop(column) }

        #expect(refused?.message.contains("columns are numbered 0…6") == true)
        #expect(view.changes == 0)
    }

    @Test("dropping after a win → is refused")
    func afterWin() throws {
        try drop(0, 1, 0, 1, 0, 1, 0)

        let refused = refusal { try drop(5) }

        #expect(refused?.error as? GameError == .gameOver(outcome: "X wins"))
    }

    @Test("undoing a drop → takes the token out and gives the turn back, in one step")
    func undo() throws {
        try drop(3, 3)

        try dispatcher.undo()

        #expect(token(3, 1) == nil)
        #expect(token(3, 0) == .x)
        #expect(view.last.gameInstruction == "O's turn")
    }

    @Test("reset → empties the board")
    func reset() throws {
        try drop(3, 4)

        try dispatcher.dispatch(ConnectFourActions.reset())

        #expect(view.last == .connectFour)
    }

    @Test("a drop built from a script payload → uses the 0-based column")
    func payload() throws {
        try dispatcher.dispatch(try dispatcher.registry.decode("connectFour.dropToken", json: #"{"column":6}"#))

        #expect(token(6, 0) == .x)
    }
}
