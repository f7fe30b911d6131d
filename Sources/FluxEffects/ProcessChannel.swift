import CFluxLoop
#if canImport(Glibc)
import Glibc
#endif

/// A started process's handle in C: its standard input and signals.
final class ProcessChannel {
    let handle: OpaquePointer
    let name: String
    private var released = false

    init(handle: OpaquePointer, name: String) {
        self.handle = handle
        self.name = name
    }

    var hasExited: Bool { released || fluxloop_process_exited(handle) != 0 }

    func write(_ text: String) throws {
        var text = text
        let status = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { fluxloop_process_write(handle, $0.baseAddress, $0.count) }
        }
        if status == -EPIPE { throw EffectError("the standard input of \(name) is closed: nothing more can be written") }
        if status != 0 { throw EffectError("cannot write to \(name): \(String(cString: strerror(-status)))") }
    }

    func closeInput() {
        guard !released else { return }
        fluxloop_process_close_stdin(handle)
    }

    func kill(_ signal: Int32) throws {
        guard !released else { return }
        let status = fluxloop_process_kill(handle, signal)
        if status != 0, status != ESRCH { throw EffectError("cannot signal \(name): \(String(cString: strerror(status)))") }
    }

    /// SIGKILLs the process's group and reaps it now: no zombie is left waiting for the loop's next round.
    func killAndReap() {
        guard !released, fluxloop_process_exited(handle) == 0 else { return }
        _ = fluxloop_process_kill(handle, SIGKILL)
        fluxloop_process_reap(handle)
    }

    /// Reports nothing more; C frees the handle once the process is reaped.
    func release() {
        guard !released else { return }
        released = true
        fluxloop_process_release(handle)
    }
}
