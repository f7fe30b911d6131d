import CFluxLoop
import Foundation

/// The shell's event loop: a libuv loop, which every timer, process and file watch of ``Effects`` and
/// the shell's reading of its input run on.
///
/// The handles live in C (CFluxLoop); each reports to the loop under a number, and the loop hands the
/// event to the function registered for that number. One thread runs the loop, the thread that reads
/// the shell's input.
///
/// ```swift
/// let loop = EventLoop.shared
/// let id = loop.register { event in print(event) }
/// let timer = fluxloop_timer_start(id, 100, 0)
/// while loop.runOnce() {}
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

    private init() {
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

    /// Runs one round of the loop: waits for an event (unless `wait` is false), handles what is due.
    ///
    /// - Returns: Whether any handle is still active.
    @discardableResult
    public func runOnce(wait: Bool = true) -> Bool {
        fluxloop_run(wait ? 1 : 2) != 0
    }

    /// Makes a running round return once it has handled what it is handling.
    public func stop() { fluxloop_stop() }

    /// The loop's clock, in milliseconds since an arbitrary start (brought up to date first).
    public var now: UInt64 {
        fluxloop_update_time()
        return fluxloop_now()
    }

    private func deliver(id: UInt64, kind: Int32, a: Int64, b: Int64, bytes: UnsafePointer<CChar>?, length: Int) {
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
