/// Timers, earliest first (ties in the order they were set): a binary heap, so 10,000 timers cost a
/// logarithm each, not a scan. `Due` is the clock's time (the virtual clock's milliseconds, the real
/// clock's nanoseconds), `Item` what is due then.
struct TimerHeap<Due: Comparable, Item> {
    struct Entry {
        let due: Due
        let order: Int
        let item: Item
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.earlier(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func removeFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        siftDown(0)
        return first
    }

    /// Replaces the first entry with `entry` (a repeating timer set again): one pass down the heap
    /// instead of a removal and an insertion.
    mutating func replaceFirst(with entry: Entry) {
        guard !entries.isEmpty else { return insert(entry) }
        entries[0] = entry
        siftDown(0)
    }

    mutating func removeAll() { entries.removeAll() }

    /// Keeps only the entries `keep` accepts (cancelled timers), in heap order again.
    mutating func removeAll(keeping keep: (Entry) -> Bool) {
        entries = entries.filter(keep)
        for parent in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(parent) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < entries.count, Self.earlier(entries[left], entries[least]) { least = left }
            if right < entries.count, Self.earlier(entries[right], entries[least]) { least = right }
            guard least != parent else { break }
            entries.swapAt(parent, least)
            parent = least
        }
    }

    private static func earlier(_ a: Entry, _ b: Entry) -> Bool {
        a.due < b.due || (a.due == b.due && a.order < b.order)
    }
}
