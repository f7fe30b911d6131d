import Flux
import FluxFeatures
import Testing

/// Tic-tac-toe as the workshop builds it: a store owning the game, actions for moves, undo per move.
@Suite("Tic-tac-toe store")
struct TicTacToeSpec {
    let dispatcher = Dispatcher()
    let store: TicTacToeStore
    let view: StateRecorder<TicTacToeState>

    init() {
        store = TicTacToeStore(dispatcher: dispatcher)
        view = StateRecorder(store)
    }

    func play(_ indices: Int...) throws {
        for index in indices { try dispatcher.dispatch(TicTacToeActions.placeToken(atIndex: index)) }
    }

    /// The board as three strings, "." for an empty cell.
    var rows: [String] {
        (0..<3).map { row in view.last.row(row).map { $0?.rawValue ?? "." }.joined() }
    }

    @Test("a new game → has an empty 3×3 board with X to move")
    func newGame() {
        #expect(view.last.board.count == 9)
        #expect(view.last.board.allSatisfy { $0 == nil })
        #expect(view.last.playerToMove == .x)
        #expect(view.last.gameInstruction == "X's turn")
    }

    @Test("a full game → alternates players and ends when X completes the top row")
    func gameToAWin() throws {
        try play(0, 3, 1, 4, 2)

        #expect(view.states.map(\.gameInstruction) == ["X's turn", "O's turn", "X's turn", "O's turn", "X's turn", "X wins"])
        #expect(rows == ["XXX", "OO.", "..."])
        #expect(view.last.winner == .x)
        #expect(view.last.winningLine == [0, 1, 2])
        #expect(view.last.playerToMove == nil)
    }

    @Test("O completing a diagonal → O wins")
    func diagonalWin() throws {
        try play(0, 2, 1, 4, 8, 6)

        #expect(view.last.gameInstruction == "O wins")
        #expect(view.last.winningLine == [2, 4, 6])
    }

    @Test("a full board without a line → is a draw")
    func draw() throws {
        try play(0, 1, 2, 4, 3, 5, 7, 6, 8)

        #expect(rows == ["XOX", "XOO", "OXX"])
        #expect(view.last.gameInstruction == "Draw")
        #expect(view.last.isDraw)
        #expect(view.last.winner == nil)
    }

    @Test("placing on a taken cell → is refused and changes nothing")
    func occupiedCell() throws {
        try play(4)

        let refused = refusal { try play(4) }

        #expect(refused?.error as? GameError == .occupied(4, by: .x))
        #expect(refused?.message.contains("cell 4 is already taken by X") == true)
        #expect(view.changes == 1)
        #expect(view.last.gameInstruction == "O's turn")
    }

    @Test("placing off the board → is refused, giving the valid indices", arguments: [-1, 9])
    func offTheBoard(index: Int) throws {
        let refused = refusal { try play(index) }

        #expect(refused?.error as? GameError == .indexOutOfRange(index, count: 9))
        #expect(refused?.message.contains("numbered 0…8") == true)
        #expect(view.changes == 0)
    }

    @Test("placing after the game is won → is refused and keeps the result")
    func afterGameOver() throws {
        try play(0, 3, 1, 4, 2)
        let final = store.state

        let refused = refusal { try play(8) }

        #expect(refused?.message.contains("the game is over (X wins)") == true)
        #expect(store.state == final)
    }

    @Test("undoing a move → takes back board and instruction together; redo puts both back")
    func undoRedoOneStep() throws {
        try play(4, 0)
        #expect(dispatcher.history.undoLabels == ["ticTacToe.placeToken", "ticTacToe.placeToken"])

        try dispatcher.undo()
        #expect(rows == ["...", ".X.", "..."])
        #expect(view.last.gameInstruction == "O's turn")
        #expect(view.last.playerToMove == .o)

        try dispatcher.undo()
        #expect(view.last == .ticTacToe)

        try dispatcher.redo()
        #expect(rows == ["...", ".X.", "..."])
        #expect(view.last.gameInstruction == "O's turn")
        // Each step reached the view as one state: the board never shows without its instruction.
        #expect(view.changes == 5)
    }

    @Test("undoing a winning move → reopens the game")
    func undoWin() throws {
        try play(0, 3, 1, 4, 2)

        try dispatcher.undo()
        try play(5)

        #expect(view.last.gameInstruction == "O's turn")
        #expect(view.last.winner == nil)
    }

    @Test("reset → starts a new game with X to move")
    func reset() throws {
        try play(4, 0, 8)

        try dispatcher.dispatch(TicTacToeActions.reset())

        #expect(view.last == .ticTacToe)
        try dispatcher.undo()
        #expect(rows == ["O..", ".X.", "..X"])
    }

    @Test("a move built from a script payload → uses the 0-based index")
    func payload() throws {
        try dispatcher.dispatch(try dispatcher.registry.decode("ticTacToe.placeToken", json: #"{"index":0}"#))

        #expect(rows == ["X..", "...", "..."])
    }
}
