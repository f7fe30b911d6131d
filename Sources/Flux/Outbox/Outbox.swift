/// An outbox: committed actions of some names, queued durably and sent to the outside world one at a
/// time, in order, until each is taken (`ok`) or refused (`reject`, then compensated).
///
/// One entry is in flight at a time (no larger window): the next is sent once the first is settled,
/// so the receiver sees them in the order they were committed. A `retry` (or a `send` that throws)
/// makes the whole outbox wait, exponentially longer each time, with jitter (see ``OutboxRetry``).
///
/// ```swift
/// let center = OutboxCenter.of(dispatcher)
/// center.declare(OutboxDefinition(name: "sync", actions: ["notes.add"], send: { entry, reply in
///     upload(entry.payload, key: entry.id) { ok in reply(ok ? .ok : .retry("offline")) }
/// }), clock: clock)
/// ```
public final class Outbox {
    /// The outbox's name.
    public let name: String
    /// What it does with entries; a second declaration of the name replaces it, the queue kept.
    public internal(set) var definition: OutboxDefinition
    let clock: OutboxClock
    /// The entries kept for good, oldest first; the first may be in flight.
    public internal(set) var queue: [OutboxEntry] = []
    /// The entry handed to `send` and not answered yet.
    public private(set) var inFlight: Int?
    /// Whether sending is paused (`:outbox pause`).
    public internal(set) var isPaused = false
    /// When the next attempt is due (the clock's milliseconds), while the outbox waits after a failure.
    public private(set) var nextTry: Double?
    /// How many entries it settled, and rejected, since the shell started.
    public private(set) var sent = 0, rejected = 0
    private var cancelTimer: (() -> Void)?
    private weak var center: OutboxCenter?
    private var replier: OutboxReplier?

    init(definition: OutboxDefinition, clock: OutboxClock, center: OutboxCenter) {
        name = definition.name
        self.definition = definition
        self.clock = clock
        self.center = center
    }

    /// Starts the next send if one is due: never inside a dispatch (the send runs from a timer).
    func pump() {
        guard cancelTimer == nil, inFlight == nil, !isPaused, !queue.isEmpty else { return }
        let delay = Swift.max(0, (nextTry ?? 0) - clock.now())
        cancelTimer = clock.after(delay) { [weak self] in
            self?.cancelTimer = nil
            self?.sendFirst()
        }
    }

    private func stopTimer() {
        cancelTimer?()
        cancelTimer = nil
    }

    private func sendFirst() {
        guard inFlight == nil, !isPaused, !queue.isEmpty, let center else { return }
        nextTry = nil
        queue[0].attempts += 1
        let entry = queue[0]
        inFlight = entry.id
        let replier = OutboxReplier(entry: entry) { [weak self] reply in self?.settle(entry.id, reply) }
        self.replier = replier
        do {
            try definition.send(entry, replier)
        } catch {
            replier(.retry("send failed: \(error)"))
            center.report("outbox '\(name)': send of entry \(entry.id) failed: \(error); it is tried again")
        }
    }

    /// What `send` answered for entry `id`.
    private func settle(_ id: Int, _ reply: OutboxReply) {
        guard inFlight == id else { return } // dropped meanwhile
        inFlight = nil
        replier = nil
        guard let index = queue.firstIndex(where: { $0.id == id }), let center else { return }
        switch reply {
        case .ok:
            let entry = queue.remove(at: index)
            sent += 1
            center.storage.remove(entry.id)
        case let .retry(why):
            queue[index].lastError = why ?? "retry"
            center.storage.update(queue[index])
            let jitter = center.jitter(entry: id, attempt: queue[index].attempts)
            nextTry = clock.now() + definition.retry.delay(afterAttempts: queue[index].attempts, jitter: jitter)
        case let .reject(why):
            let entry = queue.remove(at: index)
            rejected += 1
            center.compensate(entry, reason: why ?? "rejected", in: self)
        }
        pump()
    }

    /// Sends the first entry now, whatever the wait; false when paused or an entry is in flight.
    @discardableResult
    public func retryNow() -> Bool {
        guard !isPaused, inFlight == nil else { return false }
        stopTimer()
        nextTry = nil
        pump()
        return true
    }

    /// Stops sending (an entry in flight may still be answered).
    public func pause() {
        isPaused = true
        stopTimer()
    }

    /// Sends again, the wait after a failure kept.
    public func resume() {
        isPaused = false
        pump()
    }

    /// Drops entry `id` unsent (a reply for it, if in flight, is ignored); false when there is none.
    @discardableResult
    public func drop(_ id: Int) -> Bool {
        guard let index = queue.firstIndex(where: { $0.id == id }) else { return false }
        queue.remove(at: index)
        center?.storage.remove(id)
        if inFlight == id {
            inFlight = nil
            replier = nil
        }
        if index == 0 {
            stopTimer()
            nextTry = nil
        }
        pump()
        return true
    }

    /// Takes entries of undone actions back from the queue (not the one in flight: it may have arrived).
    func withdraw(where body: (OutboxEntry) -> Bool) -> Int {
        let before = queue.count
        queue.removeAll { entry in
            guard entry.id != inFlight, body(entry) else { return false }
            center?.storage.removeWithNextSave(entry.id)
            return true
        }
        return before - queue.count
    }

    /// Stops its timer (the outbox is declared again or goes).
    func stop() {
        stopTimer()
    }
}

/// What an outbox queues and how it sends.
public struct OutboxDefinition {
    /// Its name, unique among the dispatcher's outboxes.
    public var name: String
    /// The names of the actions it queues once committed.
    public var actions: Set<String>
    /// The waits after a failure.
    public var retry: OutboxRetry
    /// Hands an entry to the outside world; the replier may be called later. A throw counts as a retry.
    public var send: (OutboxEntry, OutboxReplier) throws -> Void
    /// Dispatches the action that undoes what the world refused (nil: nothing is compensated).
    public var rejected: ((OutboxEntry, String) throws -> Void)?

    public init(name: String, actions: Set<String>, retry: OutboxRetry = OutboxRetry(),
                send: @escaping (OutboxEntry, OutboxReplier) throws -> Void,
                rejected: ((OutboxEntry, String) throws -> Void)? = nil) {
        self.name = name
        self.actions = actions
        self.retry = retry
        self.send = send
        self.rejected = rejected
    }
}
