import Testing
@testable import FluxLua

extension FluxLuaTests {
    @Suite("Errors")
    struct Errors {
        @Test("a runtime error has its message and a traceback apart")
        func traceback() throws {
            let vm = LuaVM()
            let error = try #require(throws: LuaError.self) {
                try vm.run("""
                local function inner() error('boom') end
                local function outer() inner() end
                outer()
                """, chunkName: "script")
            }
            #expect(error.kind == .runtime)
            #expect(error.message == "script:1: boom")
            let traceback = try #require(error.traceback)
            #expect(traceback.hasPrefix("stack traceback:"))
            #expect(traceback.contains("script:1: in "))
            #expect(traceback.contains("script:2: in "))
            #expect(traceback.contains("'inner'"))
            #expect(error.description == error.message + "\n" + traceback)
        }

        @Test("a syntax error is reported as such, without a traceback")
        func syntax() throws {
            let vm = LuaVM()
            let error = try #require(throws: LuaError.self) { try vm.run("x = = 1", chunkName: "bad") }
            #expect(error.kind == .syntax)
            #expect(error.message.hasPrefix("bad:1:"))
            #expect(error.traceback == nil)
        }

        @Test("an error object with __tostring is rendered through it")
        func tostringErrorObject() throws {
            let vm = LuaVM()
            let error = try #require(throws: LuaError.self) {
                try vm.run("error(setmetatable({}, {__tostring = function() return 'custom error' end}))")
            }
            #expect(error.message == "custom error")
            #expect(error.traceback != nil)
        }

        @Test("other error objects get a readable rendering")
        func otherErrorObjects() throws {
            let vm = LuaVM()
            #expect(try #require(throws: LuaError.self) { try vm.run("error({code = 1})") }.message == "(error object is a table value)")
            #expect(try #require(throws: LuaError.self) { try vm.run("error()") }.message == "(error object is a nil value)")
            #expect(try #require(throws: LuaError.self) { try vm.run("error(42)") }.message == "42")
            let failing = try #require(throws: LuaError.self) {
                try vm.run("error(setmetatable({}, {__tostring = function() error('nested') end}))")
            }
            #expect(failing.message == "(error object is a table value)")
        }

        @Test("a runtime error inside a nested Swift call keeps the innermost traceback message")
        func errorThroughSwift() throws {
            let vm = LuaVM()
            vm.register("run", in: "host") { lua in
                let function = lua.ref(at: 1)
                try lua.call(function)
                return 0
            }
            let error = try #require(throws: LuaError.self) {
                try vm.run("host.run(function() local x = nil; return x.field end)", chunkName: "s")
            }
            #expect(error.message.hasPrefix("s:1: attempt to index a nil value"))
        }
    }
}
