import Flux

/// Owns a connect-four game: the tic-tac-toe store's shape with gravity — a dropped token lands on
/// the lowest empty cell of its column, then the shared ``BoardGameState`` rules decide the outcome.
///
/// Illegal moves (column off the board or full, game over) throw a ``GameError`` and change nothing.
public final class ConnectFourStore: Store<ConnectFourState> {
    /// The name the store registers under.
    public static let storeName = "connectFour"

    /// A store holding a new game.
    public init(dispatcher: Dispatcher) {
        super.init(name: Self.storeName, state: .connectFour, dispatcher: dispatcher)
        on(ConnectFourActions.DropToken.self) { state, action in
            try state.place(at: state.dropIndex(inColumn: action.column))
        }
        on(ConnectFourActions.Reset.self) { state, _ in
            state = .connectFour
        }
    }
}
