/// The observers of one store, told of each change in the order they subscribed: a Swift store's
/// (``Store``) and a Lua store's share this one loop.
///
/// An observer may subscribe or cancel while the list is telling a change: one added then first hears
/// the next change, and one cancelled then (itself or another) is not told any more. Cancelled observers
/// go once they are half of the list, so cancelling is O(1) amortized in any order, and never while a
/// change is being told, since the loop reads the list by index.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): `entries` and `notifying`,
/// read at every change told (in code specialised in other modules), are declared without dynamic
/// exclusivity checks. Invariant: a list is used from one thread, and no access spans a call out: an
/// observer runs on an entry read out of the list, and may add or cancel, which read the list afresh.
/// Broken, `SubscriberLifetimeSpec` and `LuaTortureSpec` (observers that cancel and subscribe while
/// told) fail under FLUX_GC_TORTURE=1.
@usableFromInline package final class ObserverList<Value> {
    /// One observer; the subscription that cancels it holds it.
    @usableFromInline package final class Entry {
        @usableFromInline let send: (Value) -> Void
        @usableFromInline var isActive = true
        @inlinable init(_ send: @escaping (Value) -> Void) { self.send = send }
    }

    @usableFromInline @exclusivity(unchecked) var entries: ContiguousArray<Entry> = []
    /// How many of `entries` are cancelled and not removed yet.
    @usableFromInline var cancelled = 0
    /// How many `send(_:)` calls are telling a change now: while any is, cancelled entries stay.
    @usableFromInline @exclusivity(unchecked) var notifying = 0

    @inlinable package init() {}

    /// How many observers are subscribed.
    @inlinable package var count: Int { entries.count - cancelled }

    /// Adds `observer`, to be told every change until `cancel(_:)` is called with what this returns.
    @inlinable package func add(_ observer: @escaping (Value) -> Void) -> Entry {
        let entry = Entry(observer)
        entries.append(entry)
        return entry
    }

    /// Stops telling `entry`; later calls do nothing.
    @usableFromInline package func cancel(_ entry: Entry) {
        guard entry.isActive else { return }
        entry.isActive = false
        cancelled += 1
        removeCancelled()
    }

    /// Removes the cancelled entries once they are half of the list, unless a change is being told.
    @usableFromInline func removeCancelled() {
        guard notifying == 0, cancelled * 2 > entries.count else { return }
        entries.removeAll { !$0.isActive }
        cancelled = 0
    }

    /// Tells every observer `value`. The list itself is walked by index, not a copy: an entry added
    /// while telling comes after those told now, and a cancelled one stays in the list until `notifying`
    /// is back to zero. Each entry is held while its observer runs, which may cancel anything.
    @inlinable package func send(_ value: Value) {
        let count = entries.count
        notifying += 1
        for index in 0 ..< count {
            let entry = entries[index]
            if entry.isActive { entry.send(value) }
        }
        notifying -= 1
        if cancelled != 0 { removeCancelled() }
    }
}
