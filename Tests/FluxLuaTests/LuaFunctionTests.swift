import Testing
@testable import FluxLua

private struct HostError: Error, CustomStringConvertible {
    var description: String { "the host refused" }
}

private struct Action: Decodable {
    var type: String
}

extension FluxLuaTests {
    @Suite("Swift functions")
    struct SwiftFunctions {
        @Test("a Swift function receives arguments and returns several results")
        func argumentsAndResults() throws {
            let vm = LuaVM()
            vm.register("divmod", in: "host") { lua in
                let a = try lua.decode(Int.self, at: 1, root: "a"), b = try lua.decode(Int.self, at: 2, root: "b")
                lua.push(a / b)
                lua.push(a % b)
                return 2
            }
            #expect(try vm.run("return host.divmod(17, 5)") == [3, 2])
        }

        @Test("registering in a table makes it requirable")
        func requirable() throws {
            let vm = LuaVM()
            vm.register("one", in: "host") { lua in lua.push(1); return 1 }
            vm.register("two", in: "host") { lua in lua.push(2); return 1 }
            vm.register("three") { lua in lua.push(3); return 1 }
            #expect(try vm.run("return require('host') == host, host.one() + host.two() + three()") == [true, 6])
        }

        @Test("a Swift error is a Lua error that pcall catches, with the Swift message and the caller's position")
        func errorCaughtByPcall() throws {
            let vm = LuaVM()
            vm.register("fail", in: "host") { _ in throw HostError() }
            let results = try vm.run("""
            local ok, message = pcall(function() host.fail() end)
            return ok, message
            """, chunkName: "script")
            #expect(results == [false, "script:1: the host refused"])
            // Called by pcall directly there is no Lua caller, hence no position.
            #expect(try vm.run("return pcall(host.fail)") == [false, "the host refused"])
        }

        @Test("an uncaught Swift error comes back to Swift as a LuaError with a traceback")
        func uncaughtError() throws {
            let vm = LuaVM()
            vm.register("fail", in: "host") { _ in throw HostError() }
            let error = try #require(throws: LuaError.self) { try vm.run("host.fail()", chunkName: "script") }
            #expect(error.kind == .runtime)
            #expect(error.message == "script:1: the host refused")
            #expect(error.traceback?.contains("host.fail") == true)
        }

        @Test("a decoding error from a Swift function names the field")
        func decodingError() throws {
            let vm = LuaVM()
            vm.register("dispatch", in: "flux") { lua in
                _ = try lua.decode(Action.self, at: 1, root: "action")
                return 0
            }
            let results = try vm.run("return pcall(function() flux.dispatch({kind = 'x'}) end)", chunkName: "s")
            #expect(results == [false, "s:1: field 'action.type': expected a string, got nil"])
        }

        @Test("an argument error reads like Lua's own")
        func argumentError() throws {
            let vm = LuaVM()
            vm.register("take", in: "host") { lua in
                throw LuaArgumentError(1, function: "take", "table expected, got \(lua.type(at: 1).name)")
            }
            #expect(try vm.run("return select(2, pcall(function() host.take() end))", chunkName: "s")
                == ["s:1: bad argument #1 to 'take' (table expected, got no value)"])
        }

        @Test("a Lua error inside a Lua callback called by Swift propagates through Swift to Lua")
        func nestedErrors() throws {
            let vm = LuaVM()
            vm.register("each", in: "host") { lua in
                let callback = lua.ref(at: 1)
                for value in 1 ... 3 {
                    try lua.call(callback) { $0.push(value) }
                }
                return 0
            }
            let results = try vm.run("""
            local seen = {}
            local ok, message = pcall(host.each, function(v)
                seen[#seen + 1] = v
                if v == 2 then error('stop at two') end
            end)
            return ok, message, #seen
            """, chunkName: "nested")
            #expect(results == [false, "nested:4: stop at two", 2])
            #expect(try vm.run("return 'still usable'") == ["still usable"])
        }

        @Test("a Swift function can be called from a coroutine, but not yield across")
        func coroutines() throws {
            let vm = LuaVM()
            vm.register("twice", in: "host") { lua in lua.push((lua.integer(at: 1) ?? 0) * 2); return 1 }
            vm.register("call", in: "host") { lua in
                let function = lua.ref(at: 1)
                try lua.call(function)
                return 0
            }
            #expect(try vm.run("""
            local co = coroutine.wrap(function(x) local y = coroutine.yield(host.twice(x)) return host.twice(y) end)
            return co(2), co(5)
            """) == [4, 10])
            let results = try vm.run("""
            local co = coroutine.create(function() host.call(function() coroutine.yield() end) end)
            return coroutine.resume(co)
            """)
            #expect(results.first == false)
            #expect(results.last?.description.contains("yield across") == true)
        }

        @Test("a Swift function can return a Swift closure to Lua")
        func closures() throws {
            let vm = LuaVM()
            vm.register("counter", in: "host") { lua in
                var count = 0
                lua.push { lua in
                    count += 1
                    lua.push(count)
                    return 1
                }
                return 1
            }
            #expect(try vm.run("local c = host.counter() c() c() return c()") == [3])
        }

        @Test("a Swift closure is released when Lua collects its function")
        func closureReleased() throws {
            final class Token {}
            weak var weakToken: Token?
            let vm = LuaVM()
            do {
                let token = Token()
                weakToken = token
                vm.stack.push { _ in _ = token; return 0 }
                vm.stack.setGlobal("f")
            }
            #expect(weakToken != nil)
            try vm.run("f = nil collectgarbage() collectgarbage()")
            #expect(weakToken == nil)
        }

        @Test("a keyed function answers one string argument found in its table with an integer by its shortcut, any other call by its body")
        func keyed() throws {
            let vm = LuaVM()
            try vm.run("keys = {a = 1, half = 2.5, word = 'x'} keys[3] = 4 keys[keys] = 5")
            vm.register("pick", in: "host", { lua in
                lua.push("body of \(lua.top)")
                return 1
            }, keyedBy: vm.globalRef("keys")) { lua, key in
                if key == 13 { throw HostError() }
                lua.push("key \(key)")
                return 1
            }
            #expect(try vm.run("return host.pick('a')") == ["key 1"])
            for call in ["host.pick('half')", "host.pick('word')", "host.pick('z')", "host.pick(nil)", "host.pick(0/0)",
                         "host.pick(3)", "host.pick(keys)"] {
                #expect(try vm.run("return \(call)") == ["body of 1"], "\(call)")
            }
            #expect(try vm.run("return host.pick('a', 1)") == ["body of 2"])
            #expect(try vm.run("return host.pick()") == ["body of 0"])
            // What the table holds when the function is called decides.
            #expect(try vm.run("keys.z = 7 keys.a = nil return host.pick('z'), host.pick('a')") == ["key 7", "body of 1"])
            #expect(try vm.run("keys.bad = 13 return pcall(function() host.pick('bad') end)", chunkName: "s")
                == [false, "s:1: the host refused"])
            #expect(vm.stack.top == 0)
        }

        @Test("a keyed function with fixed keys answers every key by its value, the one it was called with last too")
        func fixedKeys() throws {
            let vm = LuaVM()
            let long = String(repeating: "x", count: 60) // a long string: one object per string made
            try vm.run("keys = {a = 1, b = 2, ['\(long)'] = 3, half = 2.5}")
            vm.register("pick", in: "host", { lua in
                lua.push("body of \(lua.top)")
                return 1
            }, keyedBy: vm.globalRef("keys"), fixedKeys: true) { lua, key in
                lua.push("key \(key) at 2: \(lua.integer(at: 2) ?? -1)")
                return 1
            }
            #expect(try vm.run("return host.pick('a'), host.pick('a'), host.pick('b'), host.pick('a')")
                == ["key 1 at 2: 1", "key 1 at 2: 1", "key 2 at 2: 2", "key 1 at 2: 1"])
            #expect(try vm.run("local x = string.rep('x', 60) return host.pick(x), host.pick(string.rep('x', 60))")
                == ["key 3 at 2: 3", "key 3 at 2: 3"])
            // Keys added later are found; what is no key goes to the body, after a key or not.
            #expect(try vm.run("keys.c = 4 return host.pick('c'), host.pick('c')") == ["key 4 at 2: 4", "key 4 at 2: 4"])
            for call in ["host.pick('half')", "host.pick('z')", "host.pick(1)", "host.pick(keys)"] {
                #expect(try vm.run("host.pick('a') return \(call)") == ["body of 1"], "\(call)")
            }
            #expect(try vm.run("return host.pick('a', 1)") == ["body of 2"])
            #expect(vm.stack.top == 0)
        }
    }
}
