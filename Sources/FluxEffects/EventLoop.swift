import CFluxLoop
import Foundation

/// The shell's event loop: a libuv loop, which every timer, process and file watch of ``Effects`` and
/// the shell's reading of its input run on.
///
/// The handles live in C (CFluxLoop); each reports to the loop under a number, and the loop hands the
/// event to the function registered for that number. One thread runs the loop, the thread that reads
/// the shell's input.
///
/// Timers are the loop's own (``schedule(after:every:_:)``): it sleeps until the earliest with one
/// `epoll_pwait2` on libuv's epoll descriptor, to the nanosecond (or, while libuv watches nothing, one
/// futex wait that only time and the loop's waker end), and fires every timer due when it wakes without a libuv
/// round when nothing else is ready. libuv's own timers still work, to the millisecond.
///
/// A loop belongs to its thread: only that thread runs it or changes what it holds; another thread hands
/// it work with ``perform(_:)``.
///
/// ```swift
/// let loop = EventLoop.shared
/// var fired = 0
/// let timer = loop.schedule(after: 1_000_000, every: 1_000_000) { fired += 1 }
/// while fired < 10 { loop.runOnce() }
/// loop.cancel(timer)
/// ```
public final class EventLoop {
    /// What a handle reported.
    public enum Event {
        /// A timer fired.
        case timer
        /// A polled descriptor has input, or hung up.
        case readable
        /// A process wrote `bytes` to standard output (1) or error (2); the buffer lives during the call only.
        case output(stream: Int, bytes: UnsafeRawBufferPointer)
        /// A process ended, everything it wrote reported: its exit code (-1 when a signal ended it) and
        /// the signal (0 for none).
        case exit(code: Int, signal: Int32)
        /// A watched path changed: renamed (or created, or removed) and/or changed, with the name of the
        /// entry in a watched folder.
        case change(rename: Bool, change: Bool, name: String)
    }

    /// The calling thread's loop.
    public static var shared: EventLoop {
        let number = Int(fluxloop_thread_number())
        if let loop = registry.loop(number) { return loop }
        let loop = EventLoop()
        registry.set(loop, number)
        return loop
    }

    /// The loops by their thread's number: every event looks its loop up, and the thread's dictionary (a
    /// string key bridged and a cast, each time) cost more than the rest of a timer's firing.
    private static let registry = Registry()

    private final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var loops: [EventLoop?] = []

        func loop(_ number: Int) -> EventLoop? {
            lock.withLock { number < loops.count ? loops[number] : nil }
        }

        func set(_ loop: EventLoop, _ number: Int) {
            lock.withLock {
                if loops.count <= number { loops += Array(repeating: nil, count: number + 1 - loops.count) }
                loops[number] = loop
            }
        }
    }

    private var handlers: [UInt64: (Event) -> Void] = [:]
    private var nextID: UInt64 = 1
    /// The loop's timers: it sleeps until the earliest, to the nanosecond, and fires each itself. (Taking
    /// them out into a local around each change, to spare the property's run-time exclusivity checks, cost
    /// as many instructions in retains and releases as it saved: measured, not kept.)
    private var timers = LoopTimers()
    /// The number of the thread the loop belongs to: only that thread runs it or changes what it holds.
    private let thread: Int
    /// What another thread handed the loop (``perform(_:)``), run at its next round.
    private let inbox = Inbox()
    /// What wakes the loop from another thread or a signal handler (C's; it lives as long as the process).
    private let waker: OpaquePointer

    private init() {
        thread = Int(fluxloop_thread_number())
        waker = fluxloop_waker_of_thread()
        fluxloop_set_event_function { id, kind, a, b, bytes, length in
            EventLoop.shared.deliver(id: id, kind: kind, a: a, b: b, bytes: bytes, length: length)
        }
    }

    /// A number for a new handle, whose events go to `handler`.
    public func register(_ handler: @escaping (Event) -> Void) -> UInt64 {
        let id = nextID
        nextID += 1
        handlers[id] = handler
        return id
    }

    /// Sends the events of `id` nowhere from now on.
    public func unregister(_ id: UInt64) {
        handlers[id] = nil
    }

    // MARK: Threads

    /// Whether the calling thread is the loop's: the only one that may run it or change what it holds.
    public var isCurrent: Bool { Int(fluxloop_thread_number()) == thread }

    /// Runs `work` on the loop's thread: now when called there, else at the loop's next round (the loop
    /// is woken for it). What an object made on one thread and released on another must do to the loop.
    public func perform(_ work: @escaping () -> Void) {
        if isCurrent { return work() }
        inbox.append(work)
        fluxloop_wake(waker)
    }

    /// Work handed over by other threads, taken under a lock: the only state of the loop they touch.
    private final class Inbox: @unchecked Sendable {
        private let lock = NSLock()
        private var work: [() -> Void] = []

        func append(_ item: @escaping () -> Void) { lock.withLock { work.append(item) } }

        func take() -> [() -> Void] {
            lock.withLock {
                defer { work = [] }
                return work
            }
        }
    }

    /// What ends the loop's wait at once from a signal handler: a C function and its argument (it is
    /// async-signal-safe). A round in progress ends after what it handles, and the caller looks again at
    /// what it waits for; another thread hands the loop work with ``perform(_:)`` instead.
    public var wakeFunction: (function: @convention(c) (UnsafeMutableRawPointer?) -> Void, context: UnsafeMutableRawPointer) {
        (fluxloop_wake_context, UnsafeMutableRawPointer(waker))
    }

    // MARK: Timers

    /// An identifier of one of the loop's timers.
    public typealias Timer = LoopTimers.ID

    /// Calls `handler` `delay` nanoseconds from now, then every `interval` ns (0: once), on the loop's own
    /// clock (monotonic, to the nanosecond: no millisecond rounding, no drift for a repeating timer).
    /// Call on the loop's thread.
    public func schedule(after delay: Int64, every interval: Int64 = 0, _ handler: @escaping () -> Void) -> Timer {
        timers.add(due: fluxloop_clock() + max(0, delay), interval: max(0, interval), handler)
    }

    /// Cancels `timer` (fired or cancelled already: nothing happens). Call on the loop's thread.
    public func cancel(_ timer: Timer) {
        timers.remove(timer)
    }

    /// When `timer` fires next, in milliseconds on ``now``'s clock; nil when it is not set.
    public func due(of timer: Timer) -> Double? {
        timers.due(of: timer).map { Double($0) / 1_000_000 }
    }

    /// How many timers the loop holds.
    public var timerCount: Int { timers.count }

    // MARK: Running

    /// Runs one round of the loop: waits for an event or the earliest timer (unless `wait` is false),
    /// handles what is ready, then fires every timer due when it woke, earliest first.
    public func runOnce(wait: Bool = true) {
        round(until: timers.nextDue(), wait: wait)
    }

    /// Runs rounds while `keepGoing()` (asked before each) says so: ``runOnce()`` over and over, each
    /// round's last look at the timers telling the next how long to sleep. A timer that `keepGoing` itself
    /// sets is seen after the next round.
    public func run(while keepGoing: () -> Bool) {
        var due = timers.nextDue()
        while keepGoing() { due = round(until: due, wait: true) }
    }

    /// One round until `due` (the earliest timer's time, 0: none), then the timers due at waking; returns
    /// the earliest due time after them (0: none), which the timers' last look found.
    @discardableResult
    private func round(until due: Int64, wait: Bool) -> Int64 {
        var next: Int64 = 0
        let now = fluxloop_round(due, wait ? 1 : 0)
        while let handler = timers.popDue(at: now, next: &next) { handler() }
        return next
    }

    /// Makes a running round return once it has handled what it is handling.
    public func stop() { fluxloop_stop() }

    /// The loop's clock, in milliseconds since an arbitrary start (monotonic).
    public var now: UInt64 {
        UInt64(fluxloop_clock() / 1_000_000)
    }

    /// The loop's clock in milliseconds, with their fraction.
    public var preciseNow: Double {
        Double(fluxloop_clock()) / 1_000_000
    }

    private func deliver(id: UInt64, kind: Int32, a: Int64, b: Int64, bytes: UnsafePointer<CChar>?, length: Int) {
        if kind == FLUXLOOP_WAKE {
            for work in inbox.take() { work() }
            return
        }
        guard let handler = handlers[id] else { return }
        switch Int(kind) {
        case FLUXLOOP_TIMER: handler(.timer)
        case FLUXLOOP_READABLE: handler(.readable)
        case FLUXLOOP_OUTPUT:
            handler(.output(stream: Int(a), bytes: UnsafeRawBufferPointer(start: bytes, count: length)))
        case FLUXLOOP_EXIT: handler(.exit(code: Int(a), signal: Int32(b)))
        case FLUXLOOP_CHANGE:
            let name = bytes.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
            handler(.change(rename: a & 1 != 0, change: a & 2 != 0, name: name))
        default: break
        }
    }
}
