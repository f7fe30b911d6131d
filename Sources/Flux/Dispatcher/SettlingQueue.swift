/// What may still roll back, kept once for every reader of ``SettledCommits``: the commits a subscriber
/// waits for (the items of the group open now, or of all-or-nothing work still running — dropped when
/// that work is rolled back, handed on in order when the outermost one ends), and how many commits were
/// told as they happened to readers that do not wait (how many of those a rollback withdraws).
///
/// It hands items back rather than calling out: what the caller does with them (a subscriber, a write)
/// may reach the stream again, and must not run inside a change of the queue.
struct SettlingQueue<Item> {
    private var held: [Item] = []
    /// How many commits were told as they happened while they could still roll back (in a group, in
    /// all-or-nothing work, with follow-ups queued), less those withdrawn since.
    private var told = 0
    /// Where each running all-or-nothing work began: the items held and the commits told then.
    private var marks: [(held: Int, told: Int)] = []

    /// Holds `item` when it is in a group or all-or-nothing work runs, and says so. When it is not
    /// held it settles now, after what ``takeHeld()`` returns.
    mutating func holds(_ item: Item, inGroup: Bool) -> Bool {
        guard inGroup || !marks.isEmpty else { return false }
        held.append(item)
        return true
    }

    /// A commit that may still roll back was told as it happened.
    mutating func tellOne() {
        told += 1
    }

    /// What is held, no longer held: to settle before an item that settles at once.
    mutating func takeHeld() -> [Item] {
        guard !held.isEmpty else { return [] }
        defer { held.removeAll() }
        return held
    }

    /// A group's last `count` actions were rolled back: drops those held; returns how many of the
    /// commits told as they happened are withdrawn.
    mutating func rollBack(_ count: Int) -> Int {
        held.removeLast(min(count, held.count))
        let withdrawn = min(count, told)
        told -= withdrawn
        return withdrawn
    }

    /// A group ended: what settles now (nothing while all-or-nothing work still runs).
    mutating func endGroup() -> [Item] {
        marks.isEmpty ? takeHeld() : []
    }

    mutating func beginAllOrNothing() {
        marks.append((held.count, told))
    }

    /// All-or-nothing work ended: unless `kept`, what it held is dropped and what was told since it
    /// began is withdrawn (the count returned); what settles now is returned (once no outer work runs
    /// and no group is open).
    mutating func endAllOrNothing(kept: Bool, inGroup: Bool) -> (settled: [Item], withdrawn: Int) {
        let mark = marks.popLast() ?? (held: 0, told: told) // a stream made while the work ran withdraws nothing it did not tell
        if !kept {
            held.removeLast(held.count - min(mark.held, held.count))
            let withdrawn = max(0, told - mark.told)
            told -= withdrawn
            return ([], withdrawn)
        }
        return (marks.isEmpty && !inGroup ? takeHeld() : [], 0)
    }
}
