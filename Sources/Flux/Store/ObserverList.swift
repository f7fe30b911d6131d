/// The observers of one store, told of each change in the order they subscribed: a Swift store's
/// (``Store``) and a Lua store's share this one loop.
///
/// An observer may subscribe or cancel while the list is telling a change: one added then first hears
/// the next change, and one cancelled then (itself or another) is not told any more. Cancelled observers
/// go once they are half of the list, so cancelling is O(1) amortized in any order, and never while a
/// change is being told, since the loop reads the list by index.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): the list's fields (`roll`)
/// and an entry's flag, read at every change told (in code specialised in other modules), are declared
/// without dynamic exclusivity checks. Invariant: a list is used from one thread, and no access spans a
/// call out: an observer runs on an entry read out of the list, and may add or cancel, which read the
/// list afresh; cancelled entries are released after the access that removes them. A change is told to
/// each entry borrowed, unretained: while `notifying` is above zero no entry leaves the list (a cancelled
/// one stays until the last `send` ends), so the list holds every entry it tells, and the list itself is
/// held by its owner, which the caller of `send` holds.
/// Broken, `SubscriberLifetimeSpec` and `LuaTortureSpec` (observers that cancel and subscribe while
/// told) fail under FLUX_GC_TORTURE=1.
@usableFromInline package final class ObserverList<Value> {
    /// One observer; the subscription that cancels it holds it.
    @usableFromInline package final class Entry {
        @usableFromInline let send: (Value) -> Void
        @usableFromInline @exclusivity(unchecked) var isActive = true
        @inlinable init(_ send: @escaping (Value) -> Void) { self.send = send }
    }

    /// The entries; how many of them are cancelled and not removed yet; how many `send(_:)` calls are
    /// telling a change now (while any is, cancelled entries stay).
    @usableFromInline struct Roll {
        @usableFromInline var entries: ContiguousArray<Entry> = []
        @usableFromInline var cancelled = 0
        @usableFromInline var notifying = 0
        @inlinable init() {}
    }

    @usableFromInline @exclusivity(unchecked) var roll = Roll()

    @inlinable package init() {}

    /// How many observers are subscribed.
    @inlinable package var count: Int { roll.entries.count - roll.cancelled }

    /// Adds `observer`, to be told every change until `cancel(_:)` is called with what this returns.
    @inlinable package func add(_ observer: @escaping (Value) -> Void) -> Entry {
        let entry = Entry(observer)
        roll.entries.append(entry)
        return entry
    }

    /// Stops telling `entry`; later calls do nothing.
    @usableFromInline package func cancel(_ entry: Entry) {
        guard entry.isActive else { return }
        entry.isActive = false
        roll.cancelled += 1
        removeCancelled()
    }

    /// Removes the cancelled entries once they are half of the list, unless a change is being told. They
    /// are released after the access to the list ends (an observer's captures may cancel others).
    @usableFromInline func removeCancelled() {
        guard roll.notifying == 0, roll.cancelled * 2 > roll.entries.count else { return }
        var entries = ContiguousArray<Entry>()
        swap(&entries, &roll.entries)
        roll.entries = ContiguousArray(entries.lazy.filter(\.isActive))
        roll.cancelled = 0
    }

    /// Tells every observer `value`. The list itself is walked by index, not a copy: an entry added
    /// while telling comes after those told now, and a cancelled one stays in the list until `notifying`
    /// is back to zero, so the list holds each entry while its observer runs (which may cancel anything)
    /// and it is called unretained, with no retain and release per observer and change.
    @inlinable package func send(_ value: Value) {
        let count = roll.entries.count
        roll.notifying += 1
        for index in 0 ..< count {
            Unmanaged.passUnretained(roll.entries[index])._withUnsafeGuaranteedRef { entry in
                if entry.isActive { entry.send(value) }
            }
        }
        roll.notifying -= 1
        if roll.cancelled != 0 { removeCancelled() }
    }
}
