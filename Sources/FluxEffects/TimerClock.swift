import CFluxLoop

/// The real clock's timers of one ``Effects``: a heap of due times (CLOCK_MONOTONIC nanoseconds) and one
/// clock of the loop, a timer descriptor the loop polls (CFluxLoop's `fluxloop_clock`), armed at the
/// earliest of them.
///
/// Why not a libuv timer per effect: libuv counts timeouts in whole milliseconds on a millisecond loop
/// clock, so a 1 ms repeating timer wakes 0.2–1 ms late every period and the loop pays its timer
/// bookkeeping around each wake-up. Here a firing costs the loop one wake-up and one 8-byte read: the
/// descriptor is armed at the due time to the nanosecond, and for a repeating timer with its period, so
/// the kernel sets it again itself and a timer firing on time needs no system call to be re-armed. Every
/// timer due at a wake-up fires in it, earliest first; a repeating timer that fell behind (the process
/// was stopped, a callback ran long) skips the periods it missed instead of firing them in a burst.
final class TimerClock {
    /// One timer: when it is next due, its period (0: it fires once), and what a firing runs (given the
    /// next due time, 0 for a timer that fired for the last time).
    final class Timer {
        fileprivate(set) var due: Int64
        let interval: Int64
        fileprivate(set) var isScheduled = true
        fileprivate let fire: (_ next: Int64) -> Void

        fileprivate init(due: Int64, interval: Int64, fire: @escaping (Int64) -> Void) {
            self.due = due
            self.interval = interval
            self.fire = fire
        }
    }

    /// The clocks' time: CLOCK_MONOTONIC, in nanoseconds.
    static var now: Int64 { fluxloop_monotonic() }

    private let loop: EventLoop
    private var heap = TimerHeap<Int64, Timer>()
    /// Entries of cancelled timers still in the heap: dropped when they come first, or all at once when
    /// they are most of it (a timer set and cancelled over and over does not grow the heap).
    private var cancelled = 0
    private var order = 0
    private var handle: OpaquePointer?
    private var id: UInt64 = 0
    /// When the descriptor fires next (0: not armed) and its period: what the kernel does without being
    /// told, so the descriptor is set only when the earliest due time is another.
    private var armedNext: Int64 = 0
    private var armedInterval: Int64 = 0
    /// While due timers fire, arming waits for the end of the firing (a callback that sets or cancels a
    /// timer would otherwise arm the descriptor at a time about to be handled).
    private var firing = false

    init(loop: EventLoop) {
        self.loop = loop
    }

    deinit {
        close()
    }

    /// A timer due `delay` nanoseconds from now, then every `interval` nanoseconds (0: once).
    ///
    /// - Throws: ``EffectError`` when the loop has no descriptor left for the clock.
    func schedule(after delay: Int64, every interval: Int64, _ fire: @escaping (_ next: Int64) -> Void) throws -> Timer {
        try open()
        let timer = Timer(due: fluxloop_time() + delay, interval: interval, fire: fire)
        push(timer)
        arm()
        return timer
    }

    /// Takes `timer` off the clock; idempotent.
    func cancel(_ timer: Timer) {
        guard timer.isScheduled else { return }
        timer.isScheduled = false
        cancelled += 1
        if cancelled > 64, cancelled * 2 > heap.count {
            heap.removeAll { $0.item.isScheduled }
            cancelled = 0
        }
        arm()
    }

    /// Disarms the descriptor and closes it: no timer of this clock fires again.
    func close() {
        guard let handle else { return }
        fluxloop_clock_close(handle)
        loop.unregister(id)
        self.handle = nil
        heap.removeAll()
        cancelled = 0
    }

    private func open() throws {
        guard handle == nil else { return }
        id = loop.register { [weak self] event in
            if case let .clock(expirations) = event { self?.expired(expirations) }
        }
        var error: Int32 = 0
        guard let handle = fluxloop_clock_open(id, &error) else {
            loop.unregister(id)
            throw EffectError("cannot start a timer: \(String(cString: fluxloop_strerror(error)))")
        }
        self.handle = handle
        armedNext = 0
    }

    private func push(_ timer: Timer) {
        order += 1
        heap.insert(.init(due: timer.due, order: order, item: timer))
    }

    /// Sets the descriptor to the earliest due time, unless it fires then already.
    private func arm() {
        guard !firing, let handle else { return }
        while let first = heap.first, !first.item.isScheduled {
            heap.removeFirst()
            cancelled -= 1
        }
        guard let first = heap.first else {
            if armedNext != 0 {
                fluxloop_clock_arm(handle, 0, 0)
                armedNext = 0
            }
            return
        }
        guard first.due != armedNext else { return }
        // A descriptor that cannot be set (it never fails for times in range) leaves the timers waiting.
        if fluxloop_clock_arm(handle, first.due, first.item.interval) == 0 {
            armedNext = first.due
            armedInterval = first.item.interval
        }
    }

    /// The descriptor fired `expirations` times since it was last read: fires every timer due.
    private func expired(_ expirations: Int) {
        // The kernel moved a repeating descriptor on by as many periods as it reports; a single one is spent.
        armedNext = armedInterval > 0 ? armedNext + Int64(expirations) * armedInterval : 0
        let now = fluxloop_time() // read as the event was handed on
        firing = true
        defer {
            firing = false
            arm()
        }
        while let first = heap.first, first.due <= now {
            let timer = first.item
            guard timer.isScheduled else {
                heap.removeFirst()
                cancelled -= 1
                continue
            }
            if timer.interval > 0 {
                var next = first.due + timer.interval
                if next <= now { next += ((now - next) / timer.interval + 1) * timer.interval }
                timer.due = next
                order += 1
                heap.replaceFirst(with: .init(due: next, order: order, item: timer))
                timer.fire(next)
            } else {
                heap.removeFirst()
                timer.isScheduled = false
                timer.fire(0)
            }
        }
    }
}
