/// A state an undo step keeps, in a box: the history moves and copies a reference to it, where a
/// state held as `Any` is copied and destroyed through its type's value witnesses at every step.
///
/// The history reuses the box of the step it drops for the next step (``HistoryRing``), so a
/// dispatch with the undo history full allocates nothing for it. A class, not a protocol: only a
/// class reference can be checked for being the only one (`isKnownUniquelyReferenced`).
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): a typed box's `state`,
/// swapped with a store's checkpoint at every recorded step (in code specialised in other modules), is
/// declared without dynamic exclusivity checks. Invariant: a box is used from one thread, with the
/// dispatcher and history that hold it, and no access to its state spans a call out: it is swapped,
/// assigned (`hold`) or read whole, and a state it drops is an old undo state nothing calls into. Broken,
/// `LuaTortureSpec` (undo, redo and groups while callbacks collect and redefine) fails under
/// FLUX_GC_TORTURE=1.
@usableFromInline package class KeptState {
    /// The state, for whoever restores, encodes or shows it (never on the dispatch path); each kind
    /// of box gives its own.
    @usableFromInline var value: Any { () }

    @usableFromInline init() {}
}

/// A store's state, typed: keeping it copies the state as itself.
@usableFromInline package final class KeptValue<State>: KeptState {
    @usableFromInline @exclusivity(unchecked) package var state: State

    @inlinable package init(_ state: State) { self.state = state }

    /// Puts `state` in the box in place of the one it held. A store in another module calls this, not the
    /// setter.
    @inlinable package func hold(_ state: State) { self.state = state }

    @usableFromInline override var value: Any { state }
}

/// Any other target's state (a snapshot as `Any`).
final class KeptAny: KeptState {
    var snapshot: Any

    init(_ snapshot: Any) { self.snapshot = snapshot }

    override var value: Any { snapshot }

    /// `snapshot` in the box in `spare` when it can be reused, else in a new box.
    static func keeping(_ snapshot: Any, reusing spare: inout KeptState?) -> KeptAny {
        guard let box = reusable(&spare, as: KeptAny.self) else { return KeptAny(snapshot) }
        box.snapshot = snapshot
        return box
    }
}

/// The box in `spare`, taken out of it, when it is a `Box` that nothing else references (a saved
/// copy of the history may still hold a dropped step): it can then be filled again in place.
@inlinable
package func reusable<Box: KeptState>(_ spare: inout KeptState?, as: Box.Type) -> Box? {
    guard isKnownUniquelyReferenced(&spare), type(of: spare.unsafelyUnwrapped) == Box.self else { return nil }
    // Moved out, not copied and then cleared: no retain and release.
    return unsafeDowncast(spare.take().unsafelyUnwrapped, to: Box.self)
}
