/// What the outside world said of an entry.
public enum OutboxReply: Equatable, Sendable {
    /// Taken: the entry is settled and leaves the outbox.
    case ok
    /// Not now (offline, a server error): the outbox waits, then sends the same entry again.
    case retry(String?)
    /// Refused for good: the entry leaves the outbox and the compensating action is dispatched.
    case reject(String?)
}

/// How long an outbox waits before sending an entry again: exponential, from `first` up to `max`
/// milliseconds, with jitter.
public struct OutboxRetry: Equatable, Sendable {
    /// The wait after the first failed attempt, in milliseconds.
    public var first: Double
    /// The longest wait, in milliseconds.
    public var max: Double

    public init(first: Double = 1000, max: Double = 300_000) {
        self.first = first
        self.max = max
    }

    /// The wait after `attempts` failed attempts: `d = min(max, first · 2^(attempts-1))`, then a point of
    /// `[d/2, d]` picked by `jitter` (from 0 to 1).
    public func delay(afterAttempts attempts: Int, jitter: Double) -> Double {
        let doubling = Double(1 << Swift.min(Swift.max(attempts - 1, 0), 40))
        let full = Swift.min(max, first * doubling)
        return full / 2 + full / 2 * Swift.min(Swift.max(jitter, 0), 1)
    }
}

/// The one `reply` handed to `send` with an entry: the first call counts, a second is refused.
public final class OutboxReplier {
    /// The entry it answers for.
    public let entry: OutboxEntry
    private let body: (OutboxReply) -> Void
    /// The reply given, once it was.
    public private(set) var given: OutboxReply?

    init(entry: OutboxEntry, _ body: @escaping (OutboxReply) -> Void) {
        self.entry = entry
        self.body = body
    }

    /// Answers for the entry; false (and nothing done) when it was answered before.
    @discardableResult
    public func callAsFunction(_ reply: OutboxReply) -> Bool {
        guard given == nil else { return false }
        given = reply
        body(reply)
        return true
    }
}

/// What an outbox needs of time: the clock, in milliseconds, and a timer (the effects runtime's: the
/// virtual clock in `fluxsh test`).
public struct OutboxClock {
    /// Now, in milliseconds.
    public var now: () -> Double
    /// Calls the closure after the delay in milliseconds; returns what cancels it.
    public var after: (Double, @escaping () -> Void) -> (() -> Void)
    /// Whether time is virtual: then the jitter is the same in every run.
    public var isVirtual: Bool

    public init(now: @escaping () -> Double, after: @escaping (Double, @escaping () -> Void) -> (() -> Void), isVirtual: Bool) {
        self.now = now
        self.after = after
        self.isVirtual = isVirtual
    }
}
