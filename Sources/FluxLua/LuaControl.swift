import CFluxLua
import CLua

/// Owns the C control block of one state: its allocator counters, memory cap, instruction budget,
/// interrupt counter and the Swift entry points the C shim calls.
///
/// A class so that `LuaRef`s and `LuaInterruptHandle`s can keep the block alive after the VM is gone:
/// a ref then finds `state == nil` and does nothing. The block is only read and written on the VM's
/// thread, except its interrupt counter, which other threads and signal handlers bump atomically through
/// `flux_interrupt`; hence `@unchecked Sendable`.
final class LuaControl: @unchecked Sendable {
    let block: UnsafeMutablePointer<FluxControl>

    init() {
        block = .allocate(capacity: 1)
        block.initialize(to: FluxControl())
        block.pointee.owner = CContext.unretained(self)
    }

    deinit {
        block.deinitialize(count: 1)
        block.deallocate()
    }

    /// Where a message nobody can catch goes (a finalizer's error); nil: standard error.
    var warn: ((String) -> Void)?

    /// The main thread of the state, or nil once the VM has closed it.
    var state: OpaquePointer? { block.pointee.state }

    /// The control object of the state `L` belongs to (unretained: the VM keeps it alive while `L` lives).
    static func of(_ L: OpaquePointer) -> LuaControl {
        CContext.object(flux_getcontrol(L).pointee.owner, as: LuaControl.self)
    }
}
