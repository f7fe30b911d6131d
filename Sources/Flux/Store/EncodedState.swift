/// A target's state as text, named after its store and its encoding: what a session saves, and what an
/// action log's `states` line carries.
public struct EncodedState: Codable, Equatable, Sendable {
    /// The store's name.
    public let store: String
    /// The encoding (``PersistentState/stateFormat``).
    public let format: String
    /// The state, as ``PersistentState/encodeState(_:)`` wrote it.
    public let state: String

    public init(store: String, format: String, state: String) {
        self.store = store
        self.format = format
        self.state = state
    }

    /// A target's state, encoded by the target; a target that cannot encode it gets the format
    /// `unencodable` and the reason as its text, so that reading it back fails naming the store.
    public init(_ target: any DispatchTarget, state: Any) {
        guard let persistent = target as? any PersistentState else {
            self.init(store: target.name, format: "unencodable", state: "store '\(target.name)' cannot save its states")
            return
        }
        do {
            self.init(store: target.name, format: persistent.stateFormat, state: try persistent.encodeState(state))
        } catch {
            self.init(store: target.name, format: "unencodable", state: "\(error)")
        }
    }

    /// The state decoded for `dispatcher`'s store of that name, to give to ``DispatchTarget/restore(_:)``.
    ///
    /// - Throws: ``LogLineError`` when the store is missing, keeps another format, or the text no
    ///   longer decodes.
    public func decoded(in dispatcher: Dispatcher) throws -> (target: any DispatchTarget, state: Any) {
        guard let target = dispatcher.store(named: store) as? any PersistentState else {
            throw LogLineError("store '\(store)' is not there now")
        }
        guard target.reads(format: format) else {
            throw LogLineError("store '\(store)': the state was saved as \(format), the store now keeps \(target.stateFormat)")
        }
        do {
            return (target, try target.decodeState(state))
        } catch {
            throw LogLineError("store '\(store)': the state no longer decodes: \(error)")
        }
    }
}
