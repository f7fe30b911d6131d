import CFluxLua
import CLua
import Dispatch
import Testing
@testable import FluxLua

extension FluxLuaTests {
    /// The count hook is set only while something needs it: a budget, an interrupt, a call being stopped.
    @Suite("Hook")
    struct Hook {
        /// A VM whose `host.armInterrupt()` interrupts it 50 ms later, from another thread.
        static func vmWithInterruptTimer() -> LuaVM {
            let vm = LuaVM()
            let handle = vm.interruptHandle
            vm.register("armInterrupt", in: "host") { _ in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { handle.interrupt() }
                return 0
            }
            return vm
        }

        @Test("without a budget no hook is set, during a call or after it")
        func noHookWithoutBudget() throws {
            let vm = LuaVM()
            vm.register("hooked", in: "host") { lua in
                lua.push(lua_gethook(lua.state) != nil)
                return 1
            }
            #expect(try vm.run("return host.hooked()") == [false])
            #expect(try vm.run("return coroutine.wrap(function() return host.hooked() end)()") == [false])
            #expect(lua_gethook(vm.stack.state) == nil)
        }

        @Test("with a budget the hook is set for the call and removed after it")
        func hookWhileBudget() throws {
            let vm = LuaVM()
            vm.instructionBudget = 1_000_000
            vm.register("hooked", in: "host") { lua in
                lua.push(lua_gethook(lua.state) != nil)
                return 1
            }
            #expect(try vm.run("return host.hooked()") == [true])
            #expect(lua_gethook(vm.stack.state) == nil)
            vm.instructionBudget = nil
            #expect(try vm.run("return host.hooked()") == [false])
        }

        @Test("a coroutine made before a budget was set is held to it when resumed")
        func budgetReachesOlderCoroutine() throws {
            let vm = LuaVM()
            try vm.run("spin = coroutine.create(function() while true do end end)")
            vm.instructionBudget = 50_000
            let error = try #require(throws: LuaError.self) { try vm.run("local ok, message = coroutine.resume(spin) return ok, message") }
            #expect(error.kind == .budgetExceeded)
            #expect(try vm.run("return 'ok'") == ["ok"])
        }

        @Test("an interrupt stops a loop running inside a coroutine, resumed or wrapped")
        func interruptInCoroutine() throws {
            let vm = Self.vmWithInterruptTimer()
            let resumed = try #require(throws: LuaError.self) {
                try vm.run("host.armInterrupt() local ok, e = coroutine.resume(coroutine.create(function() while true do end end)) error(e, 0)")
            }
            #expect(resumed.kind == .interrupted)
            let wrapped = try #require(throws: LuaError.self) {
                try vm.run("host.armInterrupt() coroutine.wrap(function() while true do end end)()")
            }
            #expect(wrapped.kind == .interrupted)
            #expect(try vm.run("return 'after'") == ["after"])
        }

        @Test("an interrupt reaches a loop inside a coroutine that catches errors with pcall")
        func interruptCaughtInCoroutine() throws {
            let vm = Self.vmWithInterruptTimer()
            let error = try #require(throws: LuaError.self) {
                try vm.run("""
                host.armInterrupt()
                coroutine.wrap(function() while true do pcall(function() while true do end end) end end)()
                """)
            }
            #expect(error.kind == .interrupted)
            #expect(try vm.run("return 'after'") == ["after"])
        }

        @Test("the replaced coroutine functions behave as Lua's")
        func coroutineFunctions() throws {
            let vm = LuaVM()
            #expect(try vm.run("""
            local co = coroutine.create(function(a, b) local c = coroutine.yield(a + b) return c * 2 end)
            local ok1, sum = coroutine.resume(co, 1, 2)
            local ok2, double = coroutine.resume(co, 5)
            local ok3, dead = coroutine.resume(co)
            return ok1, sum, ok2, double, ok3, dead
            """) == [true, 3, true, 10, false, "cannot resume dead coroutine"])
            #expect(try vm.run("""
            local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
            return gen(), gen(), gen()
            """) == [1, 2, 3])
            #expect(try vm.run("return pcall(coroutine.wrap(function() error('boom') end))") == [false, "chunk:1: boom"])
            #expect(try vm.run("return pcall(coroutine.resume, 42)")
                == [false, "bad argument #1 to 'coroutine.resume' (thread expected, got number)"])
            #expect(try vm.run("return pcall(coroutine.wrap, 42)")
                == [false, "bad argument #1 to 'coroutine.wrap' (function expected, got number)"])
        }
    }
}
