/// A dispatcher's outboxes: what queues committed actions into them (the settled-commit stream, so a
/// rolled-back action is never queued and a replayed one never sent), takes back the entries of an
/// undone action not sent yet, and holds the storage entries are kept in.
///
/// ```swift
/// let center = OutboxCenter.of(dispatcher)
/// try center.use(session.outboxStorage())   // entries with the journal, sent again after a restart
/// ```
public final class OutboxCenter: Middleware {
    private weak var dispatcher: Dispatcher?
    /// Where entries are kept: memory until a session gives its storage.
    public private(set) var storage: any OutboxStorage = MemoryOutboxStorage()
    /// The outboxes, in the order they were declared.
    public private(set) var outboxes: [Outbox] = []
    /// Entries kept for outboxes not declared (yet): a plugin loaded later takes them.
    public private(set) var waiting: [String: [OutboxEntry]] = [:]
    /// Where problems go that stop nothing (a send that threw, a compensation that failed).
    public var report: (String) -> Void = { _ in }
    private var seed: UInt64 = .random(in: 1 ... .max)

    private init(dispatcher: Dispatcher) {
        self.dispatcher = dispatcher
    }

    /// The outboxes of `dispatcher`, made (and listening to its commits) on first use.
    public static func of(_ dispatcher: Dispatcher) -> OutboxCenter {
        if let center = dispatcher.middleware.lazy.compactMap({ $0 as? OutboxCenter }).first { return center }
        let center = OutboxCenter(dispatcher: dispatcher)
        dispatcher.middleware.append(center)
        return center
    }

    /// Whether it reads the settled commits: from the first outbox on, so that a shell without one
    /// pays nothing per action for them.
    private var listening = false

    /// The outbox called `name`.
    public func outbox(named name: String) -> Outbox? {
        outboxes.first { $0.name == name }
    }

    /// Declares an outbox, or replaces the definition of the one of that name (its queue kept). Entries
    /// kept for it (a restart) are queued first.
    @discardableResult
    public func declare(_ definition: OutboxDefinition, clock: OutboxClock) -> Outbox {
        if clock.isVirtual { seed = 0x5EED }
        if !listening, let dispatcher {
            listening = true
            SettledCommits.of(dispatcher).subscribe(skippingReplays: true) { [weak self] commit in self?.queue(commit) }
        }
        let old = outbox(named: definition.name)
        let outbox = Outbox(definition: definition, clock: clock, center: self)
        if let old {
            old.stop()
            outbox.queue = old.queue
            outbox.isPaused = old.isPaused
            outboxes[outboxes.firstIndex { $0 === old }!] = outbox
        } else {
            outboxes.append(outbox)
        }
        if let kept = waiting.removeValue(forKey: definition.name) {
            let known = Set(outbox.queue.map(\.id))
            outbox.queue = (kept.filter { !known.contains($0.id) } + outbox.queue).sorted { $0.id < $1.id }
        }
        outbox.pump()
        return outbox
    }

    /// Keeps entries in `storage` from now on: its kept entries join their outboxes (or wait for them);
    /// entries of this shell not sent yet move into it.
    public func use(_ storage: any OutboxStorage) throws {
        let kept = try storage.storedEntries()
        let moving = outboxes.flatMap { outbox in outbox.queue.filter { $0.id != outbox.inFlight } }
        for outbox in outboxes { outbox.queue.removeAll { $0.id != outbox.inFlight } }
        self.storage = storage
        for entry in kept {
            if let taker = outbox(named: entry.outbox) { taker.queue.append(entry) } else { waiting[entry.outbox, default: []].append(entry) }
        }
        if !moving.isEmpty {
            storage.enqueue(moving.map { var entry = $0; entry.id = 0; return entry }) { [weak self] in self?.arrive($0) }
        }
        for outbox in outboxes { outbox.pump() }
    }

    /// Queues a settled commit into each outbox that takes its action's name.
    private func queue(_ commit: SettledCommit) {
        guard !commit.isReplay, let action = commit.action, !outboxes.isEmpty, let dispatcher else { return }
        let name = action.name
        let takers = outboxes.filter { $0.definition.actions.contains(name) }
        guard !takers.isEmpty else { return }
        let payload: String
        do {
            payload = try ActionLogEntry.payloadJSON(of: action)
        } catch {
            return report("outbox: action '\(name)' was not queued: its payload does not encode as JSON (\(error))")
        }
        let step = commit.changed.isEmpty ? nil : dispatcher.history.undoStack.newestNumber
        let entries = takers.map { OutboxEntry(outbox: $0.name, action: name, payload: payload, step: step) }
        storage.enqueue(entries) { [weak self] in self?.arrive($0) }
    }

    /// Entries kept for good: their outboxes may send them.
    private func arrive(_ entries: [OutboxEntry]) {
        for entry in entries {
            if let taker = outbox(named: entry.outbox) {
                taker.queue.append(entry)
                taker.pump()
            } else {
                waiting[entry.outbox, default: []].append(entry)
            }
        }
    }

    /// An undo takes back the entries of the actions it undid that were not sent yet: those of steps
    /// past the undo stack's new top (steps are numbered in the order they were made) and no longer on
    /// it. An entry kept from before a restart knows its step through the storage, which links it to
    /// the step of the restored history (numbered after the steps made before the history came back,
    /// though below them on the stack: hence the second test).
    public func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        guard step == .undo, !outboxes.isEmpty || !waiting.isEmpty else { return }
        let history = dispatcher.history
        let top = history.undoStack.newestNumber ?? 0
        let storage = storage
        var onStack: Set<Int>?
        let undone: (OutboxEntry) -> Bool = { entry in
            guard let number = entry.step ?? storage.restoredStep(of: entry.id), number > top else { return false }
            if onStack == nil { onStack = Set(history.steps.undo.map(\.number)) }
            return onStack?.contains(number) == false
        }
        _ = storage.withdraw(where: undone)
        for outbox in outboxes { _ = outbox.withdraw(where: undone) }
        for (name, entries) in waiting {
            let kept = entries.filter { entry in
                guard undone(entry) else { return true }
                storage.removeWithNextSave(entry.id)
                return false
            }
            if kept.count != entries.count { waiting[name] = kept }
        }
    }

    /// Dispatches the compensating action of an entry the world refused; the entry goes with it.
    func compensate(_ entry: OutboxEntry, reason: String, in outbox: Outbox) {
        guard let rejected = outbox.definition.rejected else { return storage.remove(entry.id) }
        storage.removeWithNextSave(entry.id)
        do {
            try rejected(entry, reason)
        } catch {
            storage.remove(entry.id)
            report("outbox '\(outbox.name)': entry \(entry.id) (\(entry.action)) was rejected (\(reason)), but its compensating action failed: \(error)")
        }
    }

    /// A number from 0 to 1 for the wait after an entry's attempt: the same for the same entry and
    /// attempt under the virtual clock, and in every run of a test.
    func jitter(entry: Int, attempt: Int) -> Double {
        var z = seed &+ UInt64(truncatingIfNeeded: entry) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(truncatingIfNeeded: attempt) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
