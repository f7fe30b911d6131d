import Testing
@testable import FluxLua

private final class Counter {
    var count = 0
    var closed = false
    let labels = ["a", "b", "c"]
}

private func counterType() -> LuaObjectType<Counter> {
    var type = LuaObjectType<Counter>("test.Counter")
    type.method("increment") { lua, counter in
        counter.count += lua.integer(at: 2) ?? 1
        return 0
    }
    type.method("value") { lua, counter in
        lua.push(counter.count)
        return 1
    }
    type.metamethod(.index) { lua, counter in
        guard lua.string(at: 2) == "count" else { return 0 }
        lua.push(counter.count)
        return 1
    }
    type.metamethod(.newIndex) { lua, _ in
        throw LuaError(message: "test.Counter is read-only (cannot set '\(lua.string(at: 2) ?? "?")')")
    }
    type.metamethod(.length) { lua, counter in
        lua.push(counter.labels.count)
        return 1
    }
    type.metamethod(.toString) { lua, counter in
        lua.push("Counter(\(counter.count))")
        return 1
    }
    type.metamethod(.pairs) { lua, counter in
        let labels = counter.labels
        lua.push { lua in
            let next = (lua.integer(at: 2) ?? 0) + 1
            guard next <= labels.count else { return 0 }
            lua.push(next)
            lua.push(labels[next - 1])
            return 2
        }
        lua.pushCopy(of: 1)
        lua.push(0)
        return 3
    }
    type.metamethod(.close) { _, counter in
        counter.closed = true
        return 0
    }
    return type
}

extension FluxLuaTests {
    @Suite("Swift objects as userdata")
    struct Objects {
        @Test("methods and metamethods of a Swift object work from Lua")
        func methods() throws {
            let vm = LuaVM()
            let counter = Counter()
            vm.stack.push(counter, as: counterType())
            vm.stack.setGlobal("counter")
            let results = try vm.run("""
            counter:increment() counter:increment(4)
            local labels = {}
            for i, label in pairs(counter) do labels[#labels + 1] = i .. label end
            return counter:value(), counter.count, counter.missing, #counter, tostring(counter), table.concat(labels, ',')
            """)
            #expect(results == [5, 5, .nil, 3, "Counter(5)", "1a,2b,3c"])
            #expect(counter.count == 5)
        }

        @Test("assigning to a read-only object is an error")
        func readOnly() throws {
            let vm = LuaVM()
            vm.stack.push(Counter(), as: counterType())
            vm.stack.setGlobal("counter")
            #expect(try vm.run("return pcall(function() counter.count = 1 end)") == [false, "test.Counter is read-only (cannot set 'count')"])
        }

        @Test("a method called on something else names the expected type")
        func wrongSelf() throws {
            let vm = LuaVM()
            vm.stack.push(Counter(), as: counterType())
            vm.stack.setGlobal("counter")
            #expect(try vm.run("return select(2, pcall(function() counter.increment({}) end))", chunkName: "s")
                == ["s:1: bad argument #1 to 'increment' (test.Counter expected, got table)"])
        }

        @Test("a to-be-closed object is closed at the end of its scope")
        func close() throws {
            let vm = LuaVM()
            let counter = Counter()
            vm.register("make", in: "host") { lua in
                lua.push(counter, as: counterType())
                return 1
            }
            try vm.run("do local c <close> = host.make() c:increment() end")
            #expect(counter.closed)
            #expect(counter.count == 1)
        }

        @Test("Lua holds the object strongly until it collects the userdata")
        func lifetime() throws {
            weak var weakCounter: Counter?
            let vm = LuaVM()
            do {
                let counter = Counter()
                weakCounter = counter
                vm.stack.push(counter, as: counterType())
                vm.stack.setGlobal("counter")
            }
            try vm.run("collectgarbage()")
            #expect(weakCounter != nil)
            try vm.run("counter = nil collectgarbage() collectgarbage()")
            #expect(weakCounter == nil)
        }

        @Test("closing the VM releases the objects Lua still holds")
        func releasedOnClose() throws {
            weak var weakCounter: Counter?
            var vm: LuaVM? = LuaVM()
            do {
                let counter = Counter()
                weakCounter = counter
                vm?.stack.push(counter, as: counterType())
                vm?.stack.setGlobal("counter")
            }
            #expect(weakCounter != nil)
            vm = nil
            #expect(weakCounter == nil)
        }

        @Test("the object at an index is found only for its own type")
        func lookup() throws {
            let vm = LuaVM()
            let counter = Counter()
            let type = counterType()
            vm.stack.push(counter, as: type)
            #expect(vm.stack.object(at: -1, as: type) === counter)
            vm.stack.pushTable()
            #expect(vm.stack.object(at: -1, as: type) == nil)
            #expect(vm.stack.object(at: -2, as: LuaObjectType<Counter>("other.Counter")) == nil)
            vm.stack.top = 0
        }
    }
}
