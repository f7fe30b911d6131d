import Foundation
import Testing
@testable import FluxLua

extension FluxLuaTests {
    @Suite("LuaVM")
    struct VM {
        @Test("run returns what the chunk returns, keeping integers and floats apart")
        func runReturnsValues() throws {
            let vm = LuaVM()
            #expect(try vm.run("return 1 + 1, 7 / 2, 'hi', true, nil") == [2, 3.5, "hi", true, .nil])
            #expect(try vm.run("x = 1") == [])
        }

        @Test("run can decode its result into a Swift type")
        func runDecodes() throws {
            let vm = LuaVM()
            #expect(try vm.run("return {1, 2, 3}", as: [Int].self) == [1, 2, 3])
        }

        @Test("the chunk name appears in error messages")
        func chunkName() throws {
            let vm = LuaVM()
            let error = try #require(throws: LuaError.self) { try vm.run("\n error('boom')", chunkName: "init.lua") }
            #expect(error.message == "init.lua:2: boom")
        }

        @Test("globals can be set from Swift values and read back")
        func globals() throws {
            let vm = LuaVM()
            try vm.setGlobal("answer", to: 42)
            #expect(try vm.run("return answer + 1") == [43])
            try vm.run("greeting = 'hello'")
            #expect(vm.global("greeting") == "hello")
            #expect(vm.global("missing") == .nil)
        }

        @Test("a loaded chunk runs only when called, and can be called again")
        func loadAndCall() throws {
            let vm = LuaVM()
            try vm.run("count = 0")
            let chunk = try vm.load("count = count + 1 return count", chunkName: "counter")
            #expect(try vm.run("return count") == [0])
            #expect(try vm.call(chunk) == [1])
            #expect(try vm.call(chunk) == [2])
        }

        @Test("a function ref is called with encoded arguments")
        func callWithArguments() throws {
            let vm = LuaVM()
            let concat = try #require(try vm.run("return function(a, b, t) return a .. b .. #t end").first)
            #expect(concat.description.hasPrefix("function: 0x"))
            let function = try vm.run("f = function(a, b, t) return a .. b .. #t, math.type(b) end")
            #expect(function == [])
            let ref = vm.globalRef("f")
            #expect(try vm.call(ref, "x", 2.5, [1, 2, 3]) == ["x2.53", "float"])
        }

        @Test("the hot call path pushes arguments and reads results without arrays")
        func hotCallPath() throws {
            let vm = LuaVM()
            try vm.run("function double(x) return x * 2 end")
            let double = vm.globalRef("double")
            var total = 0
            for value in 1 ... 100 {
                total += try vm.call(double, results: 1, arguments: { $0.push(value) }) { lua, results in
                    lua.integer(at: results.lowerBound) ?? 0
                }
            }
            #expect(total == 10100)
            #expect(vm.stack.top == 0)
        }

        @Test("a ref keeps its value alive through garbage collection")
        func refKeepsValueAlive() throws {
            let vm = LuaVM()
            try vm.run("function make() local t = {name = 'kept'} return function() return t.name end end")
            let closure = try vm.call(vm.globalRef("make"), results: 1) { lua, results in lua.ref(at: results.lowerBound) }
            try vm.run("make = nil collectgarbage() collectgarbage()")
            #expect(try vm.call(closure) == ["kept"])
        }

        @Test("a ref that outlives its VM does not keep it alive, and is released without touching it")
        func refOutlivesVM() throws {
            var vm: LuaVM? = LuaVM()
            weak let closed = vm
            var ref = try #require(vm?.globalRef("print"))
            vm = nil
            #expect(closed == nil) // the ref kept neither the VM nor its state
            #expect(ref.control.state == nil) // and knows it: its release below does not reach the closed state
            let other = LuaVM()
            ref = other.globalRef("print") // the first ref is released here: under ASan, a touch would fail
            #expect(ref.control.state != nil)
            withExtendedLifetime(other) {}
        }

        @Test("the torture mode collects an unreachable object at the next allocation")
        func tortureCollectsAtNextAllocation() throws {
            // A weak-valued table's entry, unreachable once stored, is gone after the next allocation (the
            // table built on the second line) and not before; a normal VM still holds it then.
            let script = """
                local weak = setmetatable({}, {__mode = "v"})
                weak[1] = {}
                local kept = weak[1] ~= nil
                local other = {}
                return kept, weak[1] == nil
                """
            let torture = LuaVM(collectsAtEveryAllocation: true)
            #expect(torture.collectsAtEveryAllocation)
            #expect(try torture.run(script) == [true, true])
            #expect(try LuaVM(collectsAtEveryAllocation: false).run(script) == [true, false])
        }

        @Test("the torture mode runs a finalizer by the end of the next allocation")
        func tortureRunsFinalizers() throws {
            let script = """
                local ran = false
                do local x = setmetatable({}, {__gc = function() ran = true end}) end
                local a = {}
                local b = {}
                return ran
                """
            #expect(try LuaVM(collectsAtEveryAllocation: true).run(script) == [true])
            #expect(try LuaVM(collectsAtEveryAllocation: false).run(script) == [false])
        }

        @Test("the stack is balanced after runs, calls and errors")
        func stackBalanced() throws {
            let vm = LuaVM()
            try vm.run("return 1, 2, 3")
            _ = try? vm.run("error('x')")
            _ = try? vm.run("syntax error here")
            #expect(vm.stack.top == 0)
        }

        @Test("addPackagePath makes require find modules and packages in a directory")
        func packagePath() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fluxlua-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("theme"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try "return {answer = 42}".write(to: directory.appendingPathComponent("config.lua"), atomically: true, encoding: .utf8)
            try "return {color = 'blue'}".write(to: directory.appendingPathComponent("theme/init.lua"), atomically: true, encoding: .utf8)

            let vm = LuaVM()
            try vm.addPackagePath(directory.path + "/")
            try vm.addPackagePath(directory.path)
            #expect(try vm.run("return require('config').answer, require('theme').color") == [42, "blue"])
            let path = try #require(vm.run("return package.path").first?.description)
            #expect(path.components(separatedBy: directory.path + "/?.lua").count == 2)
        }
    }
}
