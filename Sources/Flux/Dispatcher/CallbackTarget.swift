/// A plain callback registered with ``Dispatcher/register(name:_:)``: it sees every action and owns no state.
final class CallbackTarget: DispatchTarget {
    let name: String
    private let callback: (any Action) throws -> Void

    init(name: String, callback: @escaping (any Action) throws -> Void) {
        self.name = name
        self.callback = callback
    }

    func handles(_ actionName: String) -> Bool { true }
    func handle(_ action: any Action, in dispatcher: Dispatcher) throws { try callback(action) }
    func publish() {}
}
