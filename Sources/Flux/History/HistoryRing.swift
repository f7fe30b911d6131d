/// The undo steps, oldest first, in a ring of fixed capacity: once full, a new step takes the oldest
/// one's slot, so recording a step neither allocates nor moves the others.
///
/// A step's parts are written into its slot in place, through the array's buffer: one uniqueness check
/// per step instead of one per part, and no whole ``HistoryEntry`` moved in and out of an optional
/// slot. A class, so reading the oldest step does not copy (and retain) the array.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): the ring's fields, written
/// at every recorded step, are declared without dynamic exclusivity checks. Invariant: the ring belongs to
/// one ``History``, used from one thread, and no access to a field spans a call out (the states it keeps
/// are moved in and out, never called). Broken, `LuaTortureSpec` (undo, redo and groups while callbacks
/// collect and redefine) fails under FLUX_GC_TORTURE=1.
final class HistoryRing {
    private struct Slot {
        var label = ""
        var number = 0
        var cost = 0
        var first: HistoryEntry.Change?
        var rest: [HistoryEntry.Change] = []
        var actions = StepActions()
    }

    @exclusivity(unchecked) private var slots: ContiguousArray<Slot> = []
    @exclusivity(unchecked) private var head = 0 // the oldest step's slot
    @exclusivity(unchecked) private(set) var count = 0
    /// The box of the first state of the step the ring dropped last, for the next step to fill again:
    /// with the ring full, recording a step then allocates nothing. Only a small state's box is kept,
    /// so a spare never holds much memory the history does not count.
    @exclusivity(unchecked) var spare: KeptState?

    /// The most a dropped state may cost for its box to be kept as the spare.
    static let spareCostLimit = 64 << 10

    /// The most steps kept.
    var capacity: Int {
        didSet {
            capacity = max(0, capacity) // in the observer itself: no second call of it
            resize()
        }
    }

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == capacity }

    /// What the oldest step's kept states cost.
    var oldestCost: Int { count > 0 ? slots[head].cost : 0 }

    /// Adds a step as the newest; when full, it takes the oldest one's place. Its first state is
    /// `target`'s in `kept`; `rest` holds the others, usually none (nil). Returns what the step it
    /// dropped cost (0 when it dropped none): read here, it costs no second look at the slot.
    @discardableResult
    func append(label: String, number: Int, cost: Int, target: any TransactionalTarget, kept: consuming KeptState, rest: [HistoryEntry.Change]?,
                actions: StepActions) -> Int {
        guard capacity > 0 else { return 0 }
        let index: Int
        let dropping: Bool
        if count < capacity {
            if slots.count < capacity { slots.append(Slot()) } // grows up to capacity, then never again
            index = slot(count)
            count += 1
            dropping = false
        } else {
            index = head
            head = slot(1)
            dropping = true
        }
        // Taken over, not retained: the caller gives up its box.
        var box: KeptState? = consume kept
        return slots.withUnsafeMutableBufferPointer { slots in
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
            slot.pointee.actions = actions
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
        guard offset < count else { return }
        slots[slot(offset)].actions = actions
    }

    /// Removes and returns the newest step.
    func popLast() -> HistoryEntry? {
        guard count > 0 else { return nil }
        count -= 1
        return take(slot(count))
    }

    /// Removes and returns the oldest step.
    func popFirst() -> HistoryEntry? {
        guard count > 0 else { return nil }
        let oldest = take(head)
        head = slot(1)
        count -= 1
        return oldest
    }

    func removeAll() {
        spare = nil
        slots.removeAll()
        head = 0
        count = 0
    }

    /// The newest step's number (nil when there is none), read without copying a step.
    var newestNumber: Int? { count > 0 ? slots[slot(count - 1)].number : nil }

    /// The newest step, left in place.
    var newest: HistoryEntry? { count > 0 ? entry(slot(count - 1)) : nil }

    /// The steps, oldest first.
    var entries: [HistoryEntry] {
        (0 ..< count).map { entry(slot($0)) }
    }

    private func entry(_ index: Int) -> HistoryEntry {
        let slot = slots[index]
        return HistoryEntry(label: slot.label, number: slot.number, cost: slot.cost, first: slot.first, rest: slot.rest, actions: slot.actions)
    }

    /// The step in slot `index`, whose slot is then emptied.
    private func take(_ index: Int) -> HistoryEntry {
        let taken = entry(index)
        slots[index] = Slot()
        return taken
    }

    private func slot(_ offset: Int) -> Int {
        let index = head + offset
        return index < slots.count ? index : index - slots.count
    }

    /// Keeps the newest `capacity` steps, in order, in a ring of the new size.
    private func resize() {
        let kept = entries.suffix(capacity)
        removeAll()
        for entry in kept { append(entry) }
    }
}
