/// A store's operations for the dispatcher, as closures made where the store's `State` is known:
/// they run code specialised for it, not generic code behind the ``DispatchTarget`` witnesses, and the
/// dispatcher calls them without going through those witnesses. Each takes the target it acts on, so a
/// store's closures capture nothing.
@usableFromInline struct StoreLane {
    /// Remembers the state now, then applies the action (``DispatchTarget/begin()`` and
    /// ``DispatchTarget/handle(_:in:)`` in one call).
    @usableFromInline let handle: (AnyObject, any Action) throws -> Void
    /// ``DispatchTarget/commit(recording:)``.
    @usableFromInline let commit: (AnyObject, Bool) -> Int?
    /// ``DispatchTarget/publish()``.
    @usableFromInline let publish: (AnyObject) -> Void
    /// ``DispatchTarget/forgetOldestUndo()``.
    @usableFromInline let forgetOldestUndo: (AnyObject) -> Void

    @inlinable init(handle: @escaping (AnyObject, any Action) throws -> Void, commit: @escaping (AnyObject, Bool) -> Int?,
                    publish: @escaping (AnyObject) -> Void, forgetOldestUndo: @escaping (AnyObject) -> Void) {
        self.handle = handle
        self.commit = commit
        self.publish = publish
        self.forgetOldestUndo = forgetOldestUndo
    }
}

extension StoreLane {
    /// The lane of any other target: its witnesses, called through closures (which ignore the object
    /// they are given) so the dispatcher calls every target the same way.
    init(target: any DispatchTarget, dispatcher: Dispatcher) {
        self.init(
            handle: { [unowned(unsafe) target, unowned(unsafe) dispatcher] _, action in
                target.begin()
                try target.handle(action, in: dispatcher)
            },
            commit: { [unowned(unsafe) target] in target.commit(recording: $1) },
            publish: { [unowned(unsafe) target] _ in target.publish() },
            forgetOldestUndo: { [unowned(unsafe) target] _ in target.forgetOldestUndo() }
        )
    }
}

/// A target that offers the dispatcher a ``StoreLane``.
@usableFromInline protocol StoreLaneProviding: DispatchTarget {
    var lane: StoreLane { get }
}
