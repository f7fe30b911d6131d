import Dispatch
import Testing
@testable import FluxLua

extension FluxLuaTests {
    @Suite("Limits")
    struct Limits {
        @Test("a runaway loop stops at the instruction budget and the VM stays usable")
        func budget() throws {
            let vm = LuaVM()
            vm.instructionBudget = 100_000
            let error = try #require(throws: LuaError.self) { try vm.run("local n = 0 while true do n = n + 1 end", chunkName: "loop") }
            #expect(error.kind == .budgetExceeded)
            #expect(error.message == "loop:1: instruction budget exceeded")
            #expect(try vm.run("return 1 + 1") == [2])
            #expect(vm.stack.top == 0)
        }

        @Test("the budget is per call: calls under it succeed one after the other")
        func budgetPerCall() throws {
            let vm = LuaVM()
            vm.instructionBudget = 200_000
            for _ in 0 ..< 5 {
                #expect(try vm.run("local n = 0 for i = 1, 20000 do n = n + i end return n") == [200_010_000])
            }
            vm.instructionBudget = nil
            #expect(try vm.run("local n = 0 for i = 1, 1000000 do n = n + 1 end return n") == [1_000_000])
        }

        @Test("a script cannot catch its way past the budget with pcall")
        func budgetNotCatchable() throws {
            let vm = LuaVM()
            vm.instructionBudget = 50_000
            let error = try #require(throws: LuaError.self) {
                try vm.run("while true do pcall(function() while true do end end) end")
            }
            #expect(error.kind == .budgetExceeded)
            let coroutine = try #require(throws: LuaError.self) {
                try vm.run("while true do coroutine.resume(coroutine.create(function() while true do end end)) end")
            }
            #expect(coroutine.kind == .budgetExceeded)
            #expect(try vm.run("return 'ok'") == ["ok"])
        }

        @Test("the budget covers Lua code called back from Swift")
        func budgetThroughSwift() throws {
            let vm = LuaVM()
            vm.instructionBudget = 50_000
            vm.register("call", in: "host") { lua in
                let function = lua.ref(at: 1)
                try lua.call(function)
                return 0
            }
            let error = try #require(throws: LuaError.self) { try vm.run("host.call(function() while true do end end)") }
            #expect(error.kind == .budgetExceeded)
            #expect(try vm.run("return 3") == [3])
        }

        @Test("interrupt from another thread stops a running script, and the VM stays usable")
        func interruptFromThread() throws {
            let vm = LuaVM()
            let handle = vm.interruptHandle
            vm.register("armInterrupt", in: "host") { _ in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { handle.interrupt() }
                return 0
            }
            let error = try #require(throws: LuaError.self) { try vm.run("host.armInterrupt() while true do end", chunkName: "spin") }
            #expect(error.kind == .interrupted)
            #expect(error.message == "spin:1: interrupted")
            #expect(try vm.run("return 'after'") == ["after"])
        }

        @Test("an interrupt requested while nothing runs does not stop the next call")
        func staleInterrupt() throws {
            let vm = LuaVM()
            vm.interrupt()
            #expect(try vm.run("local n = 0 for i = 1, 100000 do n = n + 1 end return n") == [100_000])
        }

        @Test("an interrupt handle that outlives its VM does nothing")
        func handleOutlivesVM() throws {
            var vm: LuaVM? = LuaVM()
            let handle = try #require(vm?.interruptHandle)
            vm = nil
            handle.interrupt()
            #expect(vm == nil)
        }

        // LuaVM.interruptAll stops every VM of the process, other suites' too: it is specified through
        // the shell, in its own process (FluxshProcessSpec, FluxshTerminalSpec).

        @Test("allocating without end under the memory cap fails with 'not enough memory', and the VM recovers")
        func memoryCap() throws {
            let limit = 4 << 20
            let vm = LuaVM(memoryLimit: limit)
            let error = try #require(throws: LuaError.self) {
                try vm.run("local t = {} for i = 1, math.huge do t[i] = ('x'):rep(100) .. i end")
            }
            #expect(error.kind == .memory)
            #expect(error.message == "not enough memory")
            #expect(try vm.run("collectgarbage() return #('ok' .. 'ok')") == [4])
            #expect(vm.usedMemory < limit)
            #expect(vm.memoryLimit == limit)
        }

        @Test("memory a script let go of counts as free again: small tables made and dropped over and over fit under a cap they would pass")
        func freedMemoryCountsAsFree() throws {
            let vm = LuaVM()
            let before = vm.usedMemory
            vm.memoryLimit = before + 192 << 10
            // Each round makes about 160 KiB of small tables; 20 rounds are well past the cap.
            try vm.run("""
                for _ = 1, 20 do
                  local t = {}
                  for i = 1, 2000 do t[i] = {i} end
                  t = nil
                  collectgarbage()
                end
                """)
            #expect(vm.usedMemory < before + 32 << 10)
            vm.memoryLimit = nil
        }

        @Test("a single huge allocation fails under the cap, and pcall in Lua can catch it")
        func memoryCapCaught() throws {
            let vm = LuaVM(memoryLimit: 1 << 20)
            #expect(try vm.run("return pcall(string.rep, 'x', 1 << 24)") == [false, "not enough memory"])
            #expect(try vm.run("return #string.rep('x', 1000)") == [1000])
        }

        @Test("what a Swift function pushes counts against the cap: past it, the call fails and the VM goes on")
        func swiftPushesPastCap() throws {
            let vm = LuaVM()
            vm.memoryLimit = vm.usedMemory + 64 << 10
            vm.register("big", in: "host") { lua in
                try lua.push(Array(repeating: "some text", count: 20_000))
                return 1
            }
            let error = try #require(throws: LuaError.self) { try vm.run("local t = host.big() return #t") }
            #expect(error.kind == .memory)
            #expect(try vm.run("return pcall(host.big)") == [false, "not enough memory"])
            #expect(try vm.run("collectgarbage() return 'fine'") == ["fine"])
            vm.memoryLimit = nil
            #expect(vm.memoryLimit == nil)
        }
    }
}
