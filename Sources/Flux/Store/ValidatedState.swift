/// A state that knows which of its values make sense: one read from outside (a saved session, a
/// snapshot, a `{"states": …}` log line) is checked before a store holds it, so nothing that trusts
/// the state's own rules (a board of `columns × rows` cells) meets one that breaks them.
///
/// ```swift
/// extension BoardGameState: ValidatedState {
///     public func validate() throws {
///         guard board.count == columns * rows else { throw StateValidationError("…") }
///     }
/// }
/// ```
public protocol ValidatedState {
    /// Throws ``StateValidationError`` (or any error) naming what is wrong, when the state breaks its rules.
    func validate() throws
}

/// What is wrong with a state read from outside; nothing was applied.
public struct StateValidationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong, as a person reads it: `the board has 5 cells; 3 × 3 needs 9`.
    public let problem: String
    /// The store whose state it was, once known.
    public var store: String?

    public init(_ problem: String, store: String? = nil) {
        self.problem = problem
        self.store = store
    }

    public var description: String {
        "\(store.map { "the state for store '\($0)' is not valid" } ?? "the state is not valid"): \(problem); nothing was applied"
    }
}

extension Store {
    /// `state` when it passes its own validation (``ValidatedState``); else the error, naming this store.
    func validated(_ state: State) throws -> State {
        guard let checked = state as? any ValidatedState else { return state }
        do {
            try checked.validate()
        } catch var error as StateValidationError {
            error.store = name
            throw error
        } catch {
            throw StateValidationError(String(describing: error), store: name)
        }
        return state
    }
}
