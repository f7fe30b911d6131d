import Testing
@testable import FluxLua

extension FluxLuaTests {
    @Suite("Argument readers")
    struct ArgumentReaders {
        /// `host.take(value, label?)` reads its arguments with a reader named once, where it is registered.
        private func vmWithTake() -> LuaVM {
            let vm = LuaVM()
            vm.register("take", in: "host") { lua in
                let arguments = LuaArguments(lua, function: "take")
                try arguments.expect(atMost: 2)
                try arguments.expect(.table, at: 1)
                guard lua.rawGet("name", from: 1) != .nil else { throw arguments.error(1, "field 'name' is missing") }
                let name = try arguments.name(at: -1, of: 1, "field 'name'")
                let label = lua.isNil(at: 2) ? "" : try arguments.name(2, "label")
                lua.push(name + label)
                return 1
            }
            return vm
        }

        private func message(_ call: String, on vm: LuaVM) throws -> [LuaValue] {
            try vm.run("return select(2, pcall(function() local result = \(call); return result end))", chunkName: "s")
        }

        @Test("every error names the function and the argument, worded like luaL_argerror")
        func errorsNameTheFunction() throws {
            let vm = vmWithTake()
            #expect(try message("host.take({name = 'a'}, 'b', 'c')", on: vm)
                == ["s:1: bad argument #3 to 'take' (no more than 2 arguments expected, got 3)"])
            #expect(try message("host.take()", on: vm) == ["s:1: bad argument #1 to 'take' (table expected, got no value)"])
            #expect(try message("host.take(42)", on: vm) == ["s:1: bad argument #1 to 'take' (table expected, got number)"])
            #expect(try message("host.take({})", on: vm) == ["s:1: bad argument #1 to 'take' (field 'name' is missing)"])
            #expect(try message("host.take({name = 'a'}, true)", on: vm) == ["s:1: bad argument #2 to 'take' (label expected, got boolean)"])
            #expect(try message("host.take({name = 'a'}, 'b')", on: vm) == [.string("ab")])
        }

        @Test("a name read out of an argument's field blames the argument, not the stack slot it was read into")
        func fieldErrorsBlameTheArgument() throws {
            let vm = vmWithTake()
            #expect(try message("host.take({name = 1})", on: vm) == ["s:1: bad argument #1 to 'take' (field 'name' expected, got number)"])
            #expect(try message("host.take({name = 'x\\xFF'})", on: vm)
                == [.string(#"s:1: bad argument #1 to 'take' (field 'name': name "x\xFF" is not valid UTF-8)"#)])
            #expect(try message("host.take({name = 'a'}, 'y\\xFE')", on: vm)
                == [.string(#"s:1: bad argument #2 to 'take' (label: name "y\xFE" is not valid UTF-8)"#)])
        }
    }
}
