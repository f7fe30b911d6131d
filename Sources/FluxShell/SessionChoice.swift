/// Which session a shell keeps: `fluxsh --session NAME [--fresh]`.
public struct SessionChoice: Sendable, Equatable {
    /// The session's name (its database is `NAME.sqlite` in the sessions folder).
    public var name: String
    /// Whether to start it empty, moving its old database aside.
    public var fresh = false

    /// The session `name`; `fresh` starts it empty.
    public init(name: String, fresh: Bool = false) {
        self.name = name
        self.fresh = fresh
    }

    /// The session the interactive shell keeps when none is named.
    public static let defaultName = "default"
}
