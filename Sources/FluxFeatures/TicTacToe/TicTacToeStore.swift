import Flux

/// Owns a tic-tac-toe game. Each move is one action and one state change — board, player to move
/// and instruction together — so undo takes back a move as the players perceive it.
///
/// ```swift
/// let game = TicTacToeStore(dispatcher: dispatcher)
/// try dispatcher.dispatch(TicTacToeActions.placeToken(atIndex: 4))
/// game.state.gameInstruction  // "O's turn"
/// ```
///
/// Illegal moves (occupied cell, index off the board, game over) throw a ``GameError`` and change nothing.
public final class TicTacToeStore: Store<TicTacToeState> {
    /// The name the store registers under.
    public static let storeName = "ticTacToe"

    /// A store holding a new game.
    public init(dispatcher: Dispatcher) {
        super.init(name: Self.storeName, state: .ticTacToe, dispatcher: dispatcher)
        on(TicTacToeActions.PlaceToken.self) { state, action in
            try state.place(at: action.index)
        }
        on(TicTacToeActions.Reset.self) { state, _ in
            state = .ticTacToe
        }
    }
}
