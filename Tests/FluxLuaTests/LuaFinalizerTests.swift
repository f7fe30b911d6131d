import Dispatch
import Foundation
import Testing
@testable import FluxLua

extension FluxLuaTests {
    /// Lua runs finalizers with hooks off; the host runs a script's finalizers itself, bounded like a call.
    @Suite("Finalizers")
    struct Finalizers {
        /// A VM whose finalizer errors are collected.
        final class Warnings {
            var messages: [String] = []
        }

        static func vm(budget: Int? = 1_000_000) -> (LuaVM, Warnings) {
            let vm = LuaVM()
            let warnings = Warnings()
            vm.instructionBudget = budget
            vm.onWarning = { warnings.messages.append($0) }
            return (vm, warnings)
        }

        @Test("a finalizer that loops during a call is stopped with an error, and the call goes on")
        func loopingDuringCall() throws {
            let (vm, warnings) = Self.vm()
            let results = try vm.run("""
                setmetatable({}, {__gc = function() while true do end end})
                collectgarbage()
                local n = 0 for i = 1, 1000 do n = n + i end
                return n
                """, chunkName: "gc")
            #expect(results == [500_500])
            #expect(warnings.messages.count == 1)
            #expect(warnings.messages.first?.contains("error in finalizer: gc:1: instruction budget exceeded") == true,
                    "\(warnings.messages)")
        }

        @Test("a finalizer has a budget of its own: without an instruction budget it is still stopped")
        func loopingWithoutBudget() throws {
            let (vm, warnings) = Self.vm(budget: nil)
            #expect(try vm.run("setmetatable({}, {__gc = function() while true do end end}) collectgarbage() return 'after'") == ["after"])
            #expect(warnings.messages.contains { $0.contains("instruction budget exceeded") })
        }

        @Test("a finalizer that loops at a collection step of a later allocation is stopped")
        func loopingAtCollectionStep() throws {
            let (vm, warnings) = Self.vm(budget: nil)
            try vm.run("setmetatable({}, {__gc = function() while true do end end})")
            // Allocation alone runs the collector, and with it the finalizer.
            #expect(try vm.run("local t for i = 1, 200000 do t = {i} end return 'allocated'") == ["allocated"])
            #expect(warnings.messages.count == 1)
        }

        @Test("a finalizer that loops at close is stopped, and the state closes")
        func loopingAtClose() throws {
            let warnings = Warnings()
            do {
                let vm = LuaVM()
                vm.onWarning = { warnings.messages.append($0) }
                try vm.run("collectgarbage('stop') kept = setmetatable({}, {__gc = function() while true do end end})")
            }
            #expect(warnings.messages.count == 1)
            #expect(warnings.messages.first?.contains("instruction budget exceeded") == true)
        }

        @Test("a finalizer that catches the budget error with pcall is stopped all the same")
        func loopingWithPcall() throws {
            let (vm, warnings) = Self.vm(budget: nil)
            #expect(try vm.run("setmetatable({}, {__gc = function() while true do pcall(function() while true do end end) end end}) collectgarbage() return 1") == [1])
            #expect(warnings.messages.count == 1)
        }

        @Test("an interrupt stops a looping finalizer, then the call it ran in")
        func interruptedFinalizer() throws {
            let (vm, warnings) = Self.vm(budget: nil)
            let handle = vm.interruptHandle
            let started = DispatchSemaphore(value: 0)
            let requested = DispatchSemaphore(value: 0)
            // The finalizer goes on looping only once the interrupt is requested from another thread.
            vm.register("started", in: "host") { _ in started.signal(); requested.wait(); return 0 }
            DispatchQueue.global().async {
                started.wait()
                handle.interrupt()
                requested.signal()
            }
            let error = try #require(throws: LuaError.self) {
                try vm.run("setmetatable({}, {__gc = function() host.started() for i = 1, math.maxinteger do end end}) collectgarbage() while true do end")
            }
            #expect(error.kind == .interrupted)
            #expect(warnings.messages.first?.contains("interrupted") == true, "\(warnings.messages)")
            #expect(try vm.run("return 2") == [2])
        }

        @Test("finalizers that behave run once each, in reverse order, with their object, as Lua's do")
        func wellBehaved() throws {
            let (vm, warnings) = Self.vm()
            let results = try vm.run("""
                order = {}
                for i = 1, 3 do setmetatable({name = i}, {__gc = function(o) order[#order + 1] = o.name end}) end
                local mt = {__gc = true}                      -- a placeholder, set later
                setmetatable({name = 'late'}, mt)
                mt.__gc = function(o) order[#order + 1] = o.name end
                local t = setmetatable({name = 'twice'}, {__gc = function(o) order[#order + 1] = o.name end})
                setmetatable(t, getmetatable(t))               -- one finalizer still
                t = nil
                setmetatable({}, {})                           -- no finalizer
                setmetatable({}, {__gc = true})                -- a placeholder never set: nothing runs
                collectgarbage() collectgarbage()
                return table.concat(order, ' ')
                """)
            #expect(results == ["twice late 3 2 1"])
            #expect(warnings.messages.isEmpty)
        }

        @Test("a finalizer can give its object a finalizer again, and an error in one is reported")
        func rearmedAndFailing() throws {
            let (vm, warnings) = Self.vm()
            let results = try vm.run("""
                runs = 0
                local mt = {}
                mt.__gc = function(o) runs = runs + 1 if runs < 3 then setmetatable(o, mt) end end
                setmetatable({}, mt)
                for i = 1, 4 do collectgarbage() end
                setmetatable({}, {__gc = function() error('finalizer failed') end})
                setmetatable({}, {__gc = function() coroutine.yield() end})
                collectgarbage()
                return runs
                """, chunkName: "gc")
            #expect(results == [3])
            #expect(warnings.messages.contains { $0.contains("error in finalizer: gc:6: finalizer failed") }, "\(warnings.messages)")
            #expect(warnings.messages.contains { $0.contains("attempt to yield from a finalizer") }, "\(warnings.messages)")
        }

        @Test("the sentinels' metatable is out of reach; debug.setmetatable refuses a userdata")
        func handCalls() throws {
            let (vm, _) = Self.vm()
            #expect(try vm.run("return (pcall(debug.getregistry))") == [false])
            let results = try vm.run("""
                return pcall(debug.setmetatable, io.stdout, {__gc = function() while true do end end})
                """)
            #expect(results.first == false)
            #expect(results.last?.description.contains("cannot change the metatable of a userdata") == true)
            #expect(try vm.run("return debug.setmetatable(setmetatable({}, {}), nil) ~= nil") == [true])
        }
    }
}
