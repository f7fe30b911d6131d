import CReadline
import Foundation
import Testing
@testable import FluxShell

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Set by ``interruptScript``, as the Lua VM's interrupt function sets its flag.
nonisolated(unsafe) private var scriptInterrupted: sig_atomic_t = 0
private let interruptScript: SignalInterrupts.InterruptFunction = { scriptInterrupted = 1 }
/// Set by the SIGINT handler the uninstall spec installs before the editor's.
nonisolated(unsafe) private var previousHandlerRan: sig_atomic_t = 0

extension LineEditorTests {
    /// Each test raises at most one SIGINT per phase and takes it: a second one in the running
    /// phase would end the test process, by design.
    @Suite("Signals")
    struct Signals {
        /// Runs `body` with the handler installed, as the REPL installs it.
        private func installed(_ body: () throws -> Void) rethrows {
            scriptInterrupted = 0
            SignalInterrupts.install(interrupt: interruptScript)
            defer { SignalInterrupts.uninstall() }
            try body()
        }

        /// Raises SIGINT on this thread, which the test runner's threads otherwise block.
        private func interrupt() {
            fluxrl_signal_raise_here(SIGINT)
        }

        @Test("while code runs, SIGINT calls the REPL's interrupt function and is remembered once")
        func runningPhase() {
            installed {
                #expect(SignalInterrupts.isInstalled)
                #expect(SignalInterrupts.phase == .running)
                interrupt()
                #expect(scriptInterrupted == 1)
                #expect(SignalInterrupts.takeInterrupt())
                #expect(!SignalInterrupts.takeInterrupt())
            }
        }

        @Test("while a line is edited, SIGINT only sets the flag the editor acts on; the interrupt function is not called")
        func editingPhase() {
            installed {
                SignalInterrupts.enter(.editing, terminal: false)
                interrupt()
                #expect(SignalInterrupts.interruptPending)
                SignalInterrupts.enter(.running, terminal: false)
                #expect(scriptInterrupted == 0)
                #expect(SignalInterrupts.takeInterrupt())
            }
        }

        @Test("entering the editing phase forgets an interrupt meant for the code that ran")
        func editingForgetsRunningInterrupt() {
            installed {
                interrupt()
                SignalInterrupts.enter(.editing, terminal: false)
                #expect(!SignalInterrupts.interruptPending)
                SignalInterrupts.enter(.running, terminal: false)
            }
        }

        @Test("a SIGINT wakes the self-pipe, so a wait that started just before it returns")
        func wakesThePoll() {
            installed {
                SignalInterrupts.drainWakeups()
                let wake = SignalInterrupts.wakeDescriptor
                #expect(wake >= 0)
                interrupt()
                var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                #expect(poll(&fds, 1, 0) == 1)
                SignalInterrupts.drainWakeups()
                #expect(poll(&fds, 1, 0) == 0)
                #expect(SignalInterrupts.takeInterrupt())
            }
        }

        @Test("SIGINT while waiting for piped input ends the input, and stays pending for the REPL")
        func pipedInputInterrupted() throws {
            try installed {
                let pipe = try TestPipe(writing: "")
                let writer = pipe.takeWriteEnd()
                let editor = LineEditor(input: pipe.readEnd, history: nil)
                let read = DispatchSemaphore(value: 0)
                let closed = DispatchSemaphore(value: 0)
                // One SIGINT, from another thread, once the editor waits. The write end is closed
                // once the line was read, or after two seconds so a missed signal fails the test
                // instead of hanging it.
                Thread.detachNewThread {
                    for _ in 0..<400 where SignalInterrupts.phase != .editing { usleep(5_000) }
                    if SignalInterrupts.phase == .editing { kill(getpid(), SIGINT) }
                    _ = read.wait(timeout: .now() + 2)
                    close(writer)
                    closed.signal()
                }
                #expect(editor.readLine(prompt: "") == nil)
                read.signal()
                closed.wait()
                #expect(SignalInterrupts.phase == .running)
                #expect(SignalInterrupts.takeInterrupt())
                #expect(scriptInterrupted == 0)
                #expect(editor.readLine(prompt: "") == nil)
            }
        }

        @Test("uninstalling gives SIGINT back the action it had before")
        func uninstall() {
            SignalInterrupts.uninstall()
            #expect(!SignalInterrupts.isInstalled)
            let original = signal(SIGINT) { _ in previousHandlerRan = 1 }
            defer { signal(SIGINT, original) }
            SignalInterrupts.install(interrupt: interruptScript)
            interrupt()
            #expect(previousHandlerRan == 0)
            #expect(SignalInterrupts.takeInterrupt())
            SignalInterrupts.uninstall()
            interrupt()
            #expect(previousHandlerRan == 1)
        }
    }
}
