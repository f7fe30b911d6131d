/// The timers of one ``EventLoop``, on the monotonic clock in nanoseconds: what the loop sleeps until
/// (``nextDue``) and what it fires when it wakes (``popDue(at:)``), earliest first, ties in the order they
/// were set.
///
/// A timer lives in a slot that holds its handler, so firing one is a heap pop and a call, no lookup. A
/// cancelled timer's slot is freed at once; its heap entry is dropped when it comes up (its order no longer
/// matches the slot's).
public struct LoopTimers {
    /// A timer: its slot and the slot's generation when it was set (a freed slot's next timer has another).
    public struct ID: Hashable, Sendable {
        let slot: Int
        let generation: Int
    }

    private struct Slot {
        var generation = 0
        /// The order of the timer's live heap entry; 0 when the slot is free.
        var order = 0
        /// Nanoseconds between firings; 0 for a timer that fires once.
        var interval: Int64 = 0
        var due: Int64 = 0
        var handler: (() -> Void)?
    }

    private var heap = TimerHeap()
    private var slots: [Slot] = []
    private var free: [Int] = []
    private var order = 0

    /// How many timers are set.
    private(set) var count = 0

    /// Sets a timer due at `due` (monotonic nanoseconds), then every `interval` ns (0: once).
    mutating func add(due: Int64, interval: Int64, _ handler: @escaping () -> Void) -> ID {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
        } else {
            slot = slots.count
            slots.append(Slot())
        }
        order += 1
        slots[slot].order = order
        slots[slot].interval = interval
        slots[slot].due = due
        slots[slot].handler = handler
        heap.insert(.init(due: Double(due), order: order, effect: slot))
        count += 1
        return ID(slot: slot, generation: slots[slot].generation)
    }

    /// Cancels `id`; a timer already fired (once) or cancelled is left alone.
    mutating func remove(_ id: ID) {
        guard id.slot < slots.count, slots[id.slot].generation == id.generation, slots[id.slot].order != 0 else { return }
        release(id.slot)
    }

    /// When the timer `id` fires next, in monotonic nanoseconds; nil when it is not set.
    func due(of id: ID) -> Int64? {
        guard id.slot < slots.count, slots[id.slot].generation == id.generation, slots[id.slot].order != 0 else { return nil }
        return slots[id.slot].due
    }

    /// The earliest due time, in monotonic nanoseconds; 0 when no timer is set.
    mutating func nextDue() -> Int64 {
        var next: Int64 = 0
        _ = popDue(at: .min, next: &next) // nothing is due before time began: only the look ahead
        return next
    }

    /// The handler of the earliest timer due at `now` or before, taken off the heap: a repeating timer is
    /// set again an interval after its due time (or after `now`, when it fell more than an interval
    /// behind: no burst of firings after a stall), one that fires once is freed. Nil when none is due.
    mutating func popDue(at now: Int64) -> (() -> Void)? {
        var next: Int64 = 0
        return popDue(at: now, next: &next)
    }

    /// ``popDue(at:)``, and when no timer is due, the earliest due time in `next` (as ``nextDue()``): a
    /// round's last look at the timers tells the next round how long to sleep, in the same access.
    mutating func popDue(at now: Int64, next: inout Int64) -> (() -> Void)? {
        while let first = heap.first {
            let slot = first.effect
            guard slots[slot].order == first.order else { // cancelled
                _ = heap.removeFirst()
                continue
            }
            guard first.due <= Double(now) else {
                next = slots[slot].due
                return nil
            }
            let handler = slots[slot].handler
            let interval = slots[slot].interval
            if interval > 0 {
                var due = slots[slot].due + interval
                if due <= now { due = now + interval }
                order += 1
                slots[slot].order = order
                slots[slot].due = due
                heap.replaceFirst(with: .init(due: Double(due), order: order, effect: slot))
            } else {
                _ = heap.removeFirst()
                release(slot)
            }
            return handler
        }
        next = 0
        return nil
    }

    /// Drops every timer.
    mutating func removeAll() {
        for slot in slots.indices where slots[slot].order != 0 { release(slot) }
        heap.removeAll()
    }

    private mutating func release(_ slot: Int) {
        slots[slot].order = 0
        slots[slot].handler = nil
        slots[slot].generation += 1
        free.append(slot)
        count -= 1
    }
}
