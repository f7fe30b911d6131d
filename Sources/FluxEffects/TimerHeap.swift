/// Timers earliest first (ties in the order they were set) — the virtual clock's, and each loop's
/// (``LoopTimers``): a binary heap, so 10,000 timers cost a logarithm each, not a scan.
struct TimerHeap {
    struct Entry {
        let due: Double
        let order: Int
        let effect: Int
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
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

    mutating func removeFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        siftDown()
        return first
    }

    /// Puts `entry` in the first one's place (there must be one): a repeating timer set again in one pass
    /// down the heap, instead of a removal and an insertion.
    mutating func replaceFirst(with entry: Entry) {
        entries[0] = entry
        siftDown()
    }

    private mutating func siftDown() {
        var parent = 0
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

    mutating func removeAll() { entries.removeAll() }

    private static func earlier(_ a: Entry, _ b: Entry) -> Bool {
        a.due < b.due || (a.due == b.due && a.order < b.order)
    }
}
