/// One committed action waiting in an outbox to be sent to the outside world.
///
/// `id` is the entry's idempotency key: given once, when the entry became durable, and the same after
/// every restart, so a receiver that remembers the ids it took sees each entry once.
public struct OutboxEntry: Equatable, Sendable {
    /// Unique within the outbox's storage (a session's database, or the shell's memory), growing.
    public var id: Int
    /// The outbox that sends it.
    public let outbox: String
    /// The action's name.
    public let action: String
    /// The action's payload as JSON.
    public let payload: String
    /// How many times it was handed to `send` so far.
    public var attempts: Int
    /// Why the last attempt did not succeed (a `retry`'s reason, or the error `send` raised).
    public var lastError: String?
    /// The undo step that holds its action (its number in the dispatcher's history), while it is known:
    /// undoing that step takes the entry back if it was not sent yet.
    public var step: Int?

    public init(id: Int = 0, outbox: String, action: String, payload: String, attempts: Int = 0,
                lastError: String? = nil, step: Int? = nil) {
        self.id = id
        self.outbox = outbox
        self.action = action
        self.payload = payload
        self.attempts = attempts
        self.lastError = lastError
        self.step = step
    }
}
