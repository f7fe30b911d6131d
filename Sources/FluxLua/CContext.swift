/// A Swift object as the `void *` context the C side of the bridge holds: a Swift function's box in its
/// userdata, a pushed object's box, the control block's owner, the context of a C callback.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"): the bridge's only
/// `Unmanaged`. Invariant: a pointer made by ``retained(_:)`` is released exactly once, by ``release(_:)``
/// (the userdata's `__gc`, or the state closing), and a pointer is read (``object(_:as:)``,
/// ``borrow(_:as:_:)``) only while its holder lives — a function's box while Lua calls the function
/// (the call keeps the closure, so its upvalue, on the stack), a control block's owner while its state
/// is open. Broken, `LuaTortureSpec` and the bad-input corpus under `FLUX_GC_TORTURE=1`
/// (`scripts/torture`, and ASan in `scripts/asan`) fail.
enum CContext {
    /// `object` retained, until ``release(_:)``.
    static func retained(_ object: AnyObject) -> UnsafeMutableRawPointer { Unmanaged.passRetained(object).toOpaque() }

    /// `object` not retained: its holder keeps it as long as C may hand the pointer back.
    static func unretained(_ object: AnyObject) -> UnsafeMutableRawPointer { Unmanaged.passUnretained(object).toOpaque() }

    /// The object `pointer` stands for, retained for the caller.
    static func object<T: AnyObject>(_ pointer: UnsafeRawPointer, as type: T.Type) -> T { Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue() }

    /// Runs `body` with the object `pointer` stands for, borrowed (no retain): for the calls Lua makes
    /// into a Swift function, on every `flux.dispatch`.
    static func borrow<T: AnyObject, R>(_ pointer: UnsafeRawPointer, as type: T.Type, _ body: (T) throws -> R) rethrows -> R { try Unmanaged<T>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body) }

    /// Gives up the retain ``retained(_:)`` took.
    static func release(_ pointer: UnsafeRawPointer) { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
}
