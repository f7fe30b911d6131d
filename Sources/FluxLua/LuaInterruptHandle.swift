import CFluxLua
import CLua

/// Interrupts one `LuaVM` from any thread: the call running in it stops with an "interrupted" error.
///
/// Sendable and cheap to copy; it keeps the VM's control block alive, so it stays safe to use after
/// the VM is gone (it then does nothing). `interrupt()` only bumps an atomic counter, so it may also be
/// called from a signal handler — but a C signal handler cannot capture a handle; use
/// `LuaVM.interruptAll()` there, or a `DispatchSource` signal source, whose handler can.
///
/// ```swift
/// let handle = vm.interruptHandle
/// DispatchQueue.global().asyncAfter(deadline: .now() + 1) { handle.interrupt() }
/// try vm.run("while true do end")  // throws LuaError(kind: .interrupted)
/// ```
public struct LuaInterruptHandle: Sendable {
    let control: LuaControl

    /// Stops the call running now in the VM. A request made while no Lua code runs is forgotten when
    /// the next call starts.
    public func interrupt() {
        flux_interrupt(control.block)
    }
}
