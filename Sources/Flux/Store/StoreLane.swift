/// A store's operations for the dispatcher, as closures made where the store's `State` is known:
/// they run code specialised for it, not generic code behind the ``TransactionalTarget`` witnesses, and the
/// dispatcher calls them without going through those witnesses. Each takes the target it acts on, so a
/// store's closures capture nothing.
@usableFromInline package struct StoreLane {
    /// What a commit keeps for undo: the state from ``TransactionalTarget/begin()`` (nil when not asked to
    /// keep it), boxed, and what keeping it costs in bytes.
    @usableFromInline package typealias Kept = (state: KeptState?, cost: Int)

    /// Remembers the state now, then applies the action (``TransactionalTarget/begin()`` and
    /// ``DispatchTarget/handle(_:in:)`` in one call). With the action's name, which the dispatcher
    /// already read: asking the action again is a witness call.
    /// The dispatcher is handed in, so that no lane holds it.
    @usableFromInline let handle: (AnyObject, any Action, String, Dispatcher) throws -> Void
    /// ``TransactionalTarget/commit()``: nil when the state is unchanged; otherwise, when the flag asks for
    /// it, the state from before with its ``TransactionalTarget/cost(of:)``, in the box in the spare
    /// slot (taken from it) when that box can be reused.
    @usableFromInline let commit: (AnyObject, Bool, inout KeptState?) -> Kept?
    /// ``DispatchTarget/publish()``.
    @usableFromInline let publish: (AnyObject) -> Void
    /// Whether the state differs from the one before the action (before ``commit``): the stores derived
    /// from it recompute only then. True when the target cannot tell.
    @usableFromInline let changed: (AnyObject) -> Bool

    @inlinable package init(handle: @escaping (AnyObject, any Action, String, Dispatcher) throws -> Void, commit: @escaping (AnyObject, Bool, inout KeptState?) -> Kept?,
                    publish: @escaping (AnyObject) -> Void, changed: @escaping (AnyObject) -> Bool = { _ in true }) {
        self.handle = handle
        self.commit = commit
        self.publish = publish
        self.changed = changed
    }
}

extension StoreLane {
    /// The lane of any other target: its witnesses, called through closures (which ignore the object
    /// they are given) so the dispatcher calls every target the same way.
    /// The closures hold the target, as its registration does.
    init(target: any TransactionalTarget) {
        self.init(
            handle: { _, action, _, dispatcher in
                target.begin()
                try target.handle(action, in: dispatcher)
            },
            commit: { _, keeping, spare in
                guard let before = target.commit() else { return nil }
                return keeping ? (KeptAny.keeping(before, reusing: &spare), target.cost(of: before)) : (nil, 0)
            },
            publish: { _ in target.publish() }
        )
    }
}

/// A target that offers the dispatcher a ``StoreLane``.
@usableFromInline package protocol StoreLaneProviding: DispatchTarget {
    var lane: StoreLane { get }
}
