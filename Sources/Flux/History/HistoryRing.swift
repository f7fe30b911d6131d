/// The undo steps, oldest first, in a ring of fixed capacity: once full, a new step takes the oldest
/// one's slot, so recording a step neither allocates nor moves the others.
struct HistoryRing {
    private var slots: ContiguousArray<HistoryEntry?> = []
    private var head = 0 // the oldest step's slot
    private(set) var count = 0

    /// The most steps kept.
    var capacity: Int {
        didSet { resize() }
    }

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// Adds `entry` as the newest step; when full, drops the oldest one and returns it.
    mutating func append(_ entry: consuming HistoryEntry) -> HistoryEntry? {
        guard capacity > 0 else { return entry }
        if count < capacity {
            if slots.count < capacity { slots.append(nil) } // grows up to capacity, then never again
            slots[slot(count)] = entry
            count += 1
            return nil
        }
        let oldest = slots[head].take()
        slots[head] = entry
        head = slot(1)
        return oldest
    }

    /// Removes and returns the oldest step.
    mutating func popFirst() -> HistoryEntry? {
        guard count > 0 else { return nil }
        let oldest = slots[head].take()
        head = slot(1)
        count -= 1
        return oldest
    }

    /// Removes and returns the newest step.
    mutating func popLast() -> HistoryEntry? {
        guard count > 0 else { return nil }
        count -= 1
        let index = slot(count)
        defer { slots[index] = nil }
        return slots[index]
    }

    mutating func removeAll() {
        slots.removeAll()
        head = 0
        count = 0
    }

    /// The steps, oldest first.
    var entries: [HistoryEntry] {
        (0 ..< count).compactMap { slots[slot($0)] }
    }

    private func slot(_ offset: Int) -> Int {
        let index = head + offset
        return index < slots.count ? index : index - slots.count
    }

    /// Keeps the newest `capacity` steps, in order, in a ring of the new size (the history has
    /// dropped the others first).
    private mutating func resize() {
        capacity = max(0, capacity)
        let kept = entries.suffix(capacity)
        slots = ContiguousArray(kept.map { Optional($0) })
        head = 0
        count = kept.count
    }
}
