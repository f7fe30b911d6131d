import Testing
@testable import FluxLua

extension FluxLuaTests {
    /// `debug.sethook` chains a script's hook to the host's instead of replacing it.
    @Suite("Script hooks")
    struct ScriptHooks {
        @Test("the budget stops a loop after the script cleared the hook, in the main thread or a coroutine")
        func budgetSurvivesClearedHook() throws {
            let vm = LuaVM()
            vm.instructionBudget = 200_000
            for source in ["debug.sethook() while true do end",
                           "coroutine.wrap(function() debug.sethook() while true do end end)()",
                           "debug.sethook(function() end, '', 1000000) while true do end"] {
                let error = try #require(throws: LuaError.self) { try vm.run(source) }
                #expect(error.kind == .budgetExceeded, "\(source)")
            }
            #expect(try vm.run("return 'after'") == ["after"])
        }

        @Test("an interrupt stops a loop that keeps clearing the hook")
        func interruptSurvivesClearedHook() throws {
            let vm = FluxLuaTests.Hook.vmWithInterruptTimer()
            let error = try #require(throws: LuaError.self) {
                try vm.run("host.armInterrupt() while true do debug.sethook() end")
            }
            #expect(error.kind == .interrupted)
        }

        @Test("a script's hook hears the events it asked for, gethook reports it, and the budget still counts")
        func scriptHookChained() throws {
            let vm = LuaVM()
            vm.instructionBudget = 1_000_000
            try vm.run("""
            lines, calls = 0, 0
            hook = function(event, line) if event == 'line' then lines = lines + 1 else calls = calls + 1 end end
            debug.sethook(hook, 'lc')
            """)
            #expect(try vm.run("local f, mask, count = debug.gethook() return f == hook, mask, count") == [true, "cl", 0])
            try vm.run("""
            local function f() return 1 end
            f()
            f()
            """)
            #expect(try vm.run("debug.sethook() return lines > 0, calls >= 2, debug.gethook()") == [true, true, .nil])
            let error = try #require(throws: LuaError.self) {
                try vm.run("debug.sethook(function() end, 'l')\nwhile true do end")
            }
            #expect(error.kind == .budgetExceeded)
        }

        @Test("a hook that raises an error is removed, so later calls run")
        func failingHookRemoved() throws {
            let vm = LuaVM()
            vm.instructionBudget = 1_000_000
            let error = try #require(throws: LuaError.self) {
                try vm.run("debug.sethook(function() error('hook fails') end, 'l')\nlocal x = 1")
            }
            #expect(error.message.contains("hook fails"))
            #expect(try vm.run("return debug.gethook()") == [.nil])
            let looping = try #require(throws: LuaError.self) {
                try vm.run("debug.sethook(function() while true do end end, 'l')\nlocal x = 1")
            }
            #expect(looping.kind == .budgetExceeded)
            #expect(try vm.run("local a = 1\nreturn a + 1") == [2])
        }
    }
}
