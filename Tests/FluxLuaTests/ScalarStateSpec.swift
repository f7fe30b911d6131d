import Flux
import Testing
@testable import FluxLua

/// A Swift store whose state is a scalar (`Store<Int>`, the `Store` doc comment's own counter) or an
/// array reaches Lua as a user would expect: a number as a number, an array with its length.
@Suite("Swift stores whose state is a scalar or an array, seen from Lua")
struct ScalarStateSpec {
    final class World {
        let dispatcher = Dispatcher()
        let host: FluxHost
        var stores: [AnyObject] = []

        init() {
            let counter = Store<Int>(name: "counter", state: 0, dispatcher: dispatcher)
            counter.on(Tally.self) { count, action in count += action.by }
            let word = Store<String>(name: "word", state: "hi", dispatcher: dispatcher)
            let ratio = Store<Double>(name: "ratio", state: 0.5, dispatcher: dispatcher)
            let list = Store<[Int]>(name: "list", state: [3, 1, 2], dispatcher: dispatcher)
            stores = [counter, word, ratio, list]
            host = FluxHost(dispatcher: dispatcher)
        }

        @discardableResult
        func run(_ source: String) throws -> [LuaValue] { try host.run(source) }
    }

    @Test("a subscriber of a scalar store hears the value itself, now and after every change")
    func scalarSubscriber() throws {
        let world = World()
        try world.run(#"""
            heard = {}
            flux.subscribe("counter", function(state, previous) heard[#heard + 1] = math.type(state) .. " " .. state end)
            flux.subscribe("word", function(state) word = state end)
            flux.subscribe("ratio", function(state) ratio = state end)
            flux.dispatch("tally.add", {by = 5})
            """#)
        #expect(try world.run("return table.concat(heard, ', '), word, ratio") == ["integer 0, integer 5", "hi", 0.5])
    }

    @Test("pairs on a scalar state is Lua's own error, not a crash")
    func pairsOnScalar() throws {
        let world = World()
        try world.run(#"flux.subscribe("counter", function(state) seen = state end)"#)
        #expect(try world.run("return pcall(function() for _ in pairs(seen) do end end)").first == false)
        #expect(try world.run("return seen + 1") == [1])
    }

    @Test("#state of an array state is its count, and pairs walks it")
    func arrayLength() throws {
        let world = World()
        try world.run(#"""
            flux.subscribe("list", function(state)
              length = #state
              local parts = {}
              for i, v in pairs(state) do parts[#parts + 1] = i .. "=" .. v end
              walked = table.concat(parts, " ")
              first = state[1]
            end)
            """#)
        #expect(try world.run("return length, walked, first") == [3, "1=3 2=1 3=2", 3])
    }
}
