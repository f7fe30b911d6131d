/// What a middleware holds until it settles: the items of the group open now, or of all-or-nothing work
/// still running — dropped when that work is rolled back, handed on in order when the outermost one ends.
/// ``SettledCommits`` holds its commits this way, for every reader of them.
///
/// It hands items back rather than calling out: what the caller does with them (a subscriber, a write)
/// may reach the middleware again, and must not run inside a change of the queue.
struct SettlingQueue<Item> {
    private var held: [Item] = []
    /// How many items were held when each running all-or-nothing work began.
    private var marks: [Int] = []

    /// Holds `item` when it is in a group or all-or-nothing work runs, and says so. When it is not
    /// held it settles now, after what ``takeHeld()`` returns.
    mutating func holds(_ item: Item, inGroup: Bool) -> Bool {
        guard inGroup || !marks.isEmpty else { return false }
        held.append(item)
        return true
    }

    /// What is held, no longer held: to settle before an item that settles at once.
    mutating func takeHeld() -> [Item] {
        guard !held.isEmpty else { return [] }
        defer { held.removeAll() }
        return held
    }

    /// Drops the last `count` items held: a group's actions were rolled back.
    mutating func rollBack(_ count: Int) {
        held.removeLast(min(count, held.count))
    }

    /// A group ended: what settles now (nothing while all-or-nothing work still runs).
    mutating func endGroup() -> [Item] {
        marks.isEmpty ? takeHeld() : []
    }

    mutating func beginAllOrNothing() {
        marks.append(held.count)
    }

    /// All-or-nothing work ended: what it held is dropped unless `kept`; returns what settles now (once no
    /// outer work runs and no group is open).
    mutating func endAllOrNothing(kept: Bool, inGroup: Bool) -> [Item] {
        let mark = marks.popLast() ?? 0
        if !kept {
            held.removeLast(held.count - min(mark, held.count))
            return []
        }
        return marks.isEmpty && !inGroup ? takeHeld() : []
    }
}
