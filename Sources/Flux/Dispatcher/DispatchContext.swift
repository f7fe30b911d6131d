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
    /// Weak: the context lives in a handler of a store the dispatcher owns, so a strong reference would
    /// keep the dispatcher, and every store on it, alive after its owner let go. A handler runs only
    /// inside a dispatch, while the dispatcher is alive.
    @usableFromInline weak var dispatcher: Dispatcher?

    @usableFromInline init(dispatcher: Dispatcher) {
        self.dispatcher = dispatcher
    }

    /// Runs the stores behind `tokens` on the current action first; see ``Dispatcher/waitFor(_:)``.
    public func waitFor(_ tokens: [DispatchToken]) throws {
        guard let dispatcher else { throw DispatcherError.waitForOutsideDispatch }
        try dispatcher.waitFor(tokens)
    }
}
