import Foundation
import Testing
@testable import FluxLua

/// `xpcall`'s message handler is reached by the instruction budget and by interrupts like any code: Lua
/// runs it where the error was raised, and an error the budget's hook raises is raised inside a hook, where
/// Lua runs no hook — a handler that loops there could not be stopped.
@Suite("xpcall's message handler under the budget and interrupts")
struct LuaMessageHandlerSpec {
    /// Whether `source` came back stopped with `reason`: raised, or caught by the xpcall as `false, message`
    /// (then stopped again at the script's next instruction, as after a pcall).
    static func stopped(_ vm: LuaVM, _ source: String, with reason: String) -> Bool {
        do {
            let results = try vm.run(source)
            guard results.first == false, case let .string(message) = results.dropFirst().first else { return false }
            return message.contains(reason)
        } catch let error as LuaError {
            return error.message.contains(reason)
        } catch {
            return false
        }
    }

    @Test("a looping handler cannot outlast the budget, whether the call ran out of it or failed",
          arguments: ["while true do end", "error('plain')"])
    func loopingHandlerStopsAtBudget(body: String) throws {
        let vm = LuaVM()
        vm.instructionBudget = 200_000
        #expect(Self.stopped(vm, "return xpcall(function() \(body) end, function(m) while true do end end)",
                             with: "instruction budget exceeded"))
        #expect(try vm.run("return 1 + 1") == [2]) // the VM goes on
    }

    @Test("the first interrupt stops a looping handler")
    func interruptStopsHandler() throws {
        let vm = LuaVM()
        vm.instructionBudget = 20_000_000_000 // a backstop only: the interrupt comes first
        let handle = vm.interruptHandle
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { handle.interrupt() }
        #expect(Self.stopped(vm, "return xpcall(function() while true do end end, function(m) while true do end end)",
                             with: "interrupted"))
    }

    @Test("a handler still sees an ordinary error, and debug.traceback as handler starts where the error was")
    func ordinaryErrors() throws {
        let vm = LuaVM()
        #expect(try vm.run("return xpcall(function() error('bad', 0) end, function(m) return 'handled: ' .. m end)")
                == [false, "handled: bad"])
        let traceback = try vm.run("return select(2, xpcall(function() error('bad', 0) end, debug.traceback))")
        guard case let .string(text) = traceback.first else { Issue.record("no traceback"); return }
        #expect(text.hasPrefix("bad\nstack traceback:\n\t[C]: in function 'error'"))
    }
}
