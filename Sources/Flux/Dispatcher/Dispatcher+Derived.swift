/// Derived targets: a store whose state is computed from other stores' states (reselect's memoized
/// selectors, inside the dispatcher). It is on no action's route; after the stores on the route have
/// handled an action, each derived target one of whose sources changed is handled too — after its sources
/// (derived ones first), in the same transaction and the same undo step — and a dispatch that changes none
/// of its sources does not run it at all.
extension Dispatcher {
    /// Makes `target` derived from `sources`: from now on it is handled (its ``DispatchTarget/handle(_:in:)``
    /// recomputes its state) in every dispatch that changed one of them, once they have all been handled.
    /// Called again, the new sources replace the old.
    ///
    /// - Throws: ``DispatcherError/unknownToken(_:)`` when `target` or a source is not registered,
    ///   ``DispatcherError/waitForCycle(stores:)`` when a source is (or derives from) `target`.
    public func derive(_ target: any DispatchTarget, from sources: [any DispatchTarget]) throws {
        guard let derived = registration(of: target) else {
            throw DispatcherError.unknownToken(DispatchToken(id: 0, name: target.name))
        }
        let found = try sources.map { source in
            guard let registration = registration(of: source) else {
                throw DispatcherError.unknownToken(DispatchToken(id: 0, name: source.name))
            }
            return registration
        }
        for source in found {
            if let path = path(from: source, to: derived) {
                throw DispatcherError.waitForCycle(stores: ([derived] + path).map(\.target.name))
            }
        }
        forgetDerivation(of: derived, keepingDependents: true)
        var unique: [Registration] = []
        for source in found where !unique.contains(where: { $0 === source }) { unique.append(source) }
        derived.sources = unique
        for source in unique { source.dependents.append(derived) }
        if !unique.isEmpty { hot.derivedCount += 1 }
    }

    /// The names of the targets `target` is derived from, in the order given; empty for a target that
    /// is not derived.
    public func sources(of target: any DispatchTarget) -> [String] {
        registration(of: target)?.sources.map(\.target.name) ?? []
    }

    /// The chain of sources from `registration` back to `target`, when `registration` is `target` or
    /// derives from it.
    private func path(from registration: Registration, to target: Registration) -> [Registration]? {
        if registration === target { return [registration] }
        for source in registration.sources {
            if let path = path(from: source, to: target) { return [registration] + path }
        }
        return nil
    }

    /// Takes `registration` out of the derivation graph: as a derived target (its sources forget it) and,
    /// unless `keepingDependents`, as a source (its dependents lose it).
    func forgetDerivation(of registration: Registration, keepingDependents: Bool = false) {
        if !registration.sources.isEmpty {
            for source in registration.sources { source.dependents.removeAll { $0 === registration } }
            registration.sources = []
            hot.derivedCount -= 1
        }
        guard !keepingDependents else { return }
        for dependent in registration.dependents {
            dependent.sources.removeAll { $0 === registration }
            if dependent.sources.isEmpty { hot.derivedCount -= 1 }
            orphans.append(Orphan(source: registration.object, dependent: dependent))
        }
        registration.dependents = []
    }

    /// After the route: handles every derived target one of whose sources the action changed, following
    /// `touched` as it grows, so a target derived from a derived one runs after it.
    func recomputeDerived(_ action: any Action, _ name: String) throws {
        var index = 0
        while index < hot.touchedCount {
            let registration = hot.touched[index]
            index += 1
            if registration.dependents.isEmpty { continue }
            for dependent in registration.dependents { try bringUpToDate(dependent, action, name) }
        }
    }

    /// Handles the derived `registration` when one of its sources changed in this dispatch, once its
    /// sources are up to date: derived ones brought up to date first, others that handle the action and
    /// have not run yet run now (as `waitFor` runs them; after the route every one has).
    func bringUpToDate(_ registration: Registration, _ action: any Action, _ name: String) throws {
        guard registration.marks.handledGeneration != hot.generation else { return }
        for source in registration.sources {
            if !source.sources.isEmpty {
                try bringUpToDate(source, action, name)
            } else if source.marks.handledGeneration != hot.generation, source.target.handles(name) {
                if source.marks.pending { throw DispatcherError.waitForCycle(stores: cycle(to: source)) }
                try invoke(source, action, name)
            }
        }
        let changed = registration.sources.contains { source in
            source.marks.handledGeneration == hot.generation && source.lane.changed(source.object)
        }
        if changed { try invoke(registration, action, name) }
    }

    /// A source unregistered: its dependents wait for it to be registered again (a store taken out and
    /// put back), and derive from it again then.
    struct Orphan {
        weak var source: AnyObject?
        let dependent: Registration
    }

    /// Links the dependents waiting for `registration`'s target back to it.
    func adoptOrphans(of registration: Registration) {
        guard !orphans.isEmpty else { return }
        orphans.removeAll { $0.source == nil || !$0.dependent.isRegistered }
        for orphan in orphans where orphan.source === registration.object {
            if orphan.dependent.sources.isEmpty { hot.derivedCount += 1 }
            orphan.dependent.sources.append(registration)
            registration.dependents.append(orphan.dependent)
        }
        orphans.removeAll { $0.source === registration.object }
    }
}
