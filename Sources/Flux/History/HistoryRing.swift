/// The undo steps, oldest first, in a ring of fixed capacity: once full, a new step takes the oldest
/// one's slot, so recording a step neither allocates nor moves the others.
///
/// A step's parts are written into its slot in place, through the array's buffer: one uniqueness check
/// per step instead of one per part, and no whole ``HistoryEntry`` moved in and out of an optional
/// slot. A class, so reading the oldest step does not copy (and retain) the array.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): the ring's fields, written
/// at every recorded step, live in one struct, `ring`, declared without dynamic exclusivity checks, and so
/// does the spare box. Invariant: the ring belongs to one ``History``, used from one thread, and no access
/// to a field spans a call out (the states it keeps are moved in and out, never called). Broken,
/// `LuaTortureSpec` (undo, redo and groups while callbacks collect and redefine) fails under
/// FLUX_GC_TORTURE=1.
final class HistoryRing {
    private struct Slot {
        var label = ""
        var number = 0
        var cost = 0
        var first: HistoryEntry.Change?
        var rest: [HistoryEntry.Change] = []
        var actions = StepActions()
    }

    /// The slots, the oldest step's slot (`head`), how many steps are kept and how many may be.
    private struct Ring {
        var slots: ContiguousArray<Slot> = []
        var head = 0
        var count = 0
        var capacity: Int
    }

    @exclusivity(unchecked) private var ring: Ring

    /// How many steps are kept.
    var count: Int { ring.count }
    /// The box of the first state of the step the ring dropped last, for the next step to fill again:
    /// with the ring full, recording a step then allocates nothing. Only a small state's box is kept,
    /// so a spare never holds much memory the history does not count.
    @exclusivity(unchecked) var spare: KeptState?

    /// The most a dropped state may cost for its box to be kept as the spare.
    static let spareCostLimit = 64 << 10

    /// The most steps kept.
    var capacity: Int {
        get { ring.capacity }
        set {
            ring.capacity = max(0, newValue)
            resize()
        }
    }

    init(capacity: Int) {
        ring = Ring(capacity: max(0, capacity))
    }

    var isEmpty: Bool { ring.count == 0 }
    var isFull: Bool { ring.count == ring.capacity }

    /// What the oldest step's kept states cost.
    var oldestCost: Int { ring.count > 0 ? ring.slots[ring.head].cost : 0 }

    /// Adds a step as the newest; when full, it takes the oldest one's place. Its first state is
    /// `target`'s in `kept`; `rest` holds the others, usually none (nil). Returns what the step it
    /// dropped cost (0 when it dropped none): read here, it costs no second look at the slot.
    @discardableResult
    func append(label: String, number: Int, cost: Int, target: any TransactionalTarget, kept: consuming KeptState, rest: [HistoryEntry.Change]?,
                actions: StepActions) -> Int {
        append(label: label, number: number, cost: cost, target: target, kept: kept, rest: rest) { $0 = actions }
    }

    /// ``append(label:number:cost:target:kept:rest:actions:)`` for a step of the one action `action`, outside
    /// a group: the action is written into the slot's actions in place, not through a step of its own.
    func append(label: String, number: Int, cost: Int, target: any TransactionalTarget, kept: consuming KeptState, single action: any Action) -> Int {
        append(label: label, number: number, cost: cost, target: target, kept: kept, rest: nil) { $0.setSingle(action) }
    }

    @inline(__always)
    private func append(label: String, number: Int, cost: Int, target: any TransactionalTarget, kept: consuming KeptState, rest: [HistoryEntry.Change]?,
                        setActions: (inout StepActions) -> Void) -> Int {
        guard ring.capacity > 0 else { return 0 }
        let index: Int
        let dropping: Bool
        if ring.count < ring.capacity {
            if ring.slots.count < ring.capacity { ring.slots.append(Slot()) } // grows up to capacity, then never again
            index = slot(ring.count)
            ring.count += 1
            dropping = false
        } else {
            index = ring.head
            ring.head = slot(1)
            dropping = true
        }
        // Taken over, not retained: the caller gives up its box.
        var box: KeptState? = consume kept
        return ring.slots.withUnsafeMutableBufferPointer { slots in
            let slot = slots.baseAddress.unsafelyUnwrapped + index
            let dropped = dropping ? slot.pointee.cost : 0
            let keepsSpare = dropping && dropped <= Self.spareCostLimit
            // A dispatch loop repeats one action on one store: what a slot already holds is not
            // written again, which would retain the new value and release the old one.
            if slot.pointee.label != label { slot.pointee.label = label }
            slot.pointee.number = number
            slot.pointee.cost = cost
            if slot.pointee.first?.target === target {
                // The new box swapped in, the dropped one moved on to the spare slot.
                swap(&slot.pointee.first!.kept, &box!)
                if keepsSpare { swap(&spare, &box) }
            } else {
                if keepsSpare { spare = slot.pointee.first?.kept }
                slot.pointee.first = HistoryEntry.Change(target: target, kept: box.take().unsafelyUnwrapped)
            }
            if let rest { slot.pointee.rest = rest } else if !slot.pointee.rest.isEmpty { slot.pointee.rest = [] }
            setActions(&slot.pointee.actions)
            return dropped
        }
    }

    @discardableResult
    func append(_ entry: HistoryEntry) -> Int {
        guard let first = entry.first else { return 0 }
        return append(label: entry.label, number: entry.number, cost: entry.cost, target: first.target, kept: first.kept, rest: entry.rest,
                      actions: entry.actions)
    }

    /// Sets the actions of the step `offset` from the oldest.
    func setActions(_ actions: StepActions, at offset: Int) {
        guard offset < ring.count else { return }
        ring.slots[slot(offset)].actions = actions
    }

    /// Removes and returns the newest step.
    func popLast() -> HistoryEntry? {
        guard ring.count > 0 else { return nil }
        ring.count -= 1
        return take(slot(ring.count))
    }

    /// Removes and returns the oldest step.
    func popFirst() -> HistoryEntry? {
        guard ring.count > 0 else { return nil }
        let oldest = take(ring.head)
        ring.head = slot(1)
        ring.count -= 1
        return oldest
    }

    func removeAll() {
        spare = nil
        // The steps released after the access ends.
        var slots: ContiguousArray<Slot> = []
        swap(&slots, &ring.slots)
        ring.head = 0
        ring.count = 0
    }

    /// The newest step's number (nil when there is none), read without copying a step.
    var newestNumber: Int? { ring.count > 0 ? ring.slots[slot(ring.count - 1)].number : nil }

    /// The newest step, left in place.
    var newest: HistoryEntry? { count > 0 ? entry(slot(count - 1)) : nil }

    /// The steps, oldest first.
    var entries: [HistoryEntry] {
        (0 ..< ring.count).map { entry(slot($0)) }
    }

    private func entry(_ index: Int) -> HistoryEntry {
        let slot = ring.slots[index]
        return HistoryEntry(label: slot.label, number: slot.number, cost: slot.cost, first: slot.first, rest: slot.rest, actions: slot.actions)
    }

    /// The step in slot `index`, whose slot is then emptied (its old contents released after the access).
    private func take(_ index: Int) -> HistoryEntry {
        let taken = entry(index)
        var emptied = Slot()
        swap(&emptied, &ring.slots[index])
        return taken
    }

    private func slot(_ offset: Int) -> Int {
        let index = ring.head + offset
        return index < ring.slots.count ? index : index - ring.slots.count
    }

    /// Keeps the newest `capacity` steps, in order, in a ring of the new size.
    private func resize() {
        let kept = entries.suffix(ring.capacity)
        removeAll()
        for entry in kept { append(entry) }
    }
}
