/// What a store's handler may ask of the dispatch it runs in: to let other stores handle the action
/// first.
///
/// A store takes it in its handler (`on(A.self) { state, action, context in … }`, or
/// `onEveryAction { state, action, context in … }` for a derived store)
/// instead of capturing its dispatcher: the dispatcher owns its stores, so a store whose handler held
/// the dispatcher would keep it, and every store on it, alive after its owner let go.
///
/// ```swift
/// onEveryAction { state, _, context in
///     try context.waitFor([issues.token, filters.token])
///     state = VisibleIssuesState(issues: issues.state, filters: filters.state)
/// }
/// ```
public struct DispatchContext {
    /// The context lives while a handler runs (a handler that kept it would keep the dispatcher).
    @usableFromInline let dispatcher: Dispatcher

    @usableFromInline init(dispatcher: Dispatcher) {
        self.dispatcher = dispatcher
    }

    /// Runs the stores behind `tokens` on the current action first; see ``Dispatcher/waitFor(_:)``.
    public func waitFor(_ tokens: [DispatchToken]) throws {
        try dispatcher.waitFor(tokens)
    }
}
