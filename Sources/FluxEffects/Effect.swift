/// A live effect: a timer, a process or a file watch, with its owner. ``cancel()`` ends it (a process
/// gets SIGTERM, then SIGKILL after ``Effects/gracePeriod``); cancelling twice does nothing.
public final class Effect {
    /// The effect's number, unique in its ``Effects``.
    public let id: Int
    /// Who started it.
    public let owner: EffectOwner
    /// What it is.
    public let kind: EffectKind
    /// What it runs: the program and its arguments, the path watched, the interval.
    public let detail: String
    /// When it started, in milliseconds on the runtime's clock.
    public let started: Double
    /// When it fires next, in milliseconds on the runtime's clock (timers only).
    public internal(set) var due: Double? {
        get { nextDue?() ?? setDue }
        set { setDue = newValue }
    }
    private var setDue: Double?
    /// A real-clock timer's next firing, asked of its loop (which re-arms it without telling the effect).
    var nextDue: (() -> Double?)?
    /// The process's id (processes only).
    public internal(set) var pid: Int32?
    /// Whether it is still live: not cancelled, not fired (for `after`), not exited (for a process).
    public internal(set) var isActive = true

    weak var runtime: Effects?
    /// Ends the effect's resources: stops a timer, ends a process, stops a watch.
    var stop: () -> Void = {}
    /// A process's standard input and signals.
    var process: ProcessChannel?

    init(id: Int, owner: EffectOwner, kind: EffectKind, detail: String, started: Double) {
        self.id = id
        self.owner = owner
        self.kind = kind
        self.detail = detail
        self.started = started
    }

    /// Ends the effect; its callbacks are not called again. Idempotent.
    public func cancel() {
        runtime?.end(self)
    }

    /// Writes `text` to the process's standard input (queued when the pipe is full).
    ///
    /// - Throws: ``EffectError`` when this is no process, it ended, or its input was closed.
    public func write(_ text: String) throws {
        guard let process, isActive else { throw EffectError("the process \(detail) has ended: nothing can be written to it") }
        try process.write(text)
    }

    /// Closes the process's standard input once what was written is out (a program reading to the end
    /// of its input, such as `sort`, then finishes).
    public func closeInput() {
        process?.closeInput()
    }

    /// Sends `signal` to the process and its process group.
    ///
    /// - Throws: ``EffectError`` when this is no process or it has ended.
    public func kill(_ signal: Int32) throws {
        guard let process, isActive else { throw EffectError("the process \(detail) has ended") }
        try process.kill(signal)
    }
}
