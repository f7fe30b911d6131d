/// The undo steps, oldest first, in a ring of fixed capacity: once full, a new step takes the oldest
/// one's slot, so recording a step neither allocates nor moves the others.
///
/// A step's parts are kept in parallel arrays rather than as ``HistoryEntry`` values: recording writes
/// each part in place, where moving whole entries in and out of optional slots copies them. A class,
/// so reading the oldest step does not copy (and retain) the arrays.
final class HistoryRing {
    // One thread; no access spans a call out.
    @exclusivity(unchecked) private var labels: ContiguousArray<String> = []
    @exclusivity(unchecked) private var numbers: ContiguousArray<Int> = []
    @exclusivity(unchecked) private var costs: ContiguousArray<Int> = []
    @exclusivity(unchecked) private var firsts: ContiguousArray<HistoryEntry.Change?> = []
    @exclusivity(unchecked) private var rests: ContiguousArray<[HistoryEntry.Change]> = []
    @exclusivity(unchecked) private var head = 0 // the oldest step's slot
    @exclusivity(unchecked) private(set) var count = 0
    /// The box of the first state of the step the ring dropped last, for the next step to fill again:
    /// with the ring full, recording a step then allocates nothing. Only a small state's box is kept,
    /// so a spare never holds much memory the history does not count.
    @exclusivity(unchecked) var spare: KeptState?

    /// The most a dropped state may cost for its box to be kept as the spare.
    static let spareCostLimit = 64 << 10

    /// The most steps kept.
    @exclusivity(unchecked) var capacity: Int {
        didSet { resize() }
    }

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == capacity }

    /// What the oldest step's kept states cost.
    var oldestCost: Int { count > 0 ? costs[head] : 0 }

    /// Adds a step as the newest; when full, it takes the oldest one's place. `rest` holds the states
    /// after `first`, usually none (nil).
    func append(label: String, number: Int, cost: Int, first: HistoryEntry.Change, rest: [HistoryEntry.Change]?) {
        guard capacity > 0 else { return }
        let index: Int
        if count < capacity {
            if labels.count < capacity { // grows up to capacity, then never again
                labels.append("")
                numbers.append(0)
                costs.append(0)
                firsts.append(nil)
                rests.append([])
            }
            index = slot(count)
            count += 1
        } else {
            index = head
            head = slot(1)
            if costs[index] <= Self.spareCostLimit, let oldest = firsts[index] { spare = oldest.kept }
        }
        labels[index] = label
        numbers[index] = number
        costs[index] = cost
        firsts[index] = first
        if let rest { rests[index] = rest } else if !rests[index].isEmpty { rests[index] = [] }
    }

    func append(_ entry: HistoryEntry) {
        guard let first = entry.first else { return }
        append(label: entry.label, number: entry.number, cost: entry.cost, first: first, rest: entry.rest)
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
        labels.removeAll()
        numbers.removeAll()
        costs.removeAll()
        firsts.removeAll()
        rests.removeAll()
        head = 0
        count = 0
    }

    /// The steps, oldest first.
    var entries: [HistoryEntry] {
        (0 ..< count).map { entry(slot($0)) }
    }

    private func entry(_ index: Int) -> HistoryEntry {
        HistoryEntry(label: labels[index], number: numbers[index], cost: costs[index], first: firsts[index], rest: rests[index])
    }

    /// The step in slot `index`, whose slot is then emptied.
    private func take(_ index: Int) -> HistoryEntry {
        let taken = entry(index)
        labels[index] = ""
        numbers[index] = 0
        costs[index] = 0
        firsts[index] = nil
        rests[index] = []
        return taken
    }

    private func slot(_ offset: Int) -> Int {
        let index = head + offset
        return index < labels.count ? index : index - labels.count
    }

    /// Keeps the newest `capacity` steps, in order, in a ring of the new size.
    private func resize() {
        capacity = max(0, capacity)
        let kept = entries.suffix(capacity)
        removeAll()
        for entry in kept { append(entry) }
    }
}
