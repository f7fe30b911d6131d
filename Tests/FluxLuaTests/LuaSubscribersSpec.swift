import Flux
import Testing
@testable import FluxLua

/// How a store's Lua subscribers hear a change together: in the order they subscribed, each with the
/// state it heard last as `previous`, whatever the others do meanwhile.
@Suite("A store's Lua subscribers, told together")
struct LuaSubscribersSpec {
    let world = Harness()

    /// Defines the Lua store `c`, so that each spec runs against a Swift store and a Lua store alike.
    private func defineLuaStore() throws {
        try world.run(#"""
        flux.store{name = "c", state = {count = 0}, on = {["c.up"] = function(s) s.count = s.count + 1 return s end}}
        """#)
    }

    /// `(store, action)` of each kind of store.
    private static let stores = [("tally", "tally.add"), ("c", "c.up")]

    @Test("a failing subscriber is reported, and the ones after it still hear the change; raised again at the same place (its text changed), it is counted", arguments: stores)
    func failureInTheMiddle(store: String, action: String) throws {
        try defineLuaStore()
        try world.run(#"""
        heard = {}
        flux.subscribe("\#(store)", function(state) heard[#heard + 1] = "a" .. state.count end)
        flux.subscribe("\#(store)", function(state) if state.count > 0 then error("bad " .. state.count) end end)
        flux.subscribe("\#(store)", function(state) heard[#heard + 1] = "c" .. state.count end)
        heard = {}
        flux.dispatch("\#(action)")
        flux.dispatch("\#(action)")
        """#)
        #expect(try world.run("return table.concat(heard, ' ')") == [.string("a1 c1 a2 c2")])
        #expect(world.reports.count == 1)
        #expect(world.reports.allSatisfy { $0.contains("error in subscriber of '\(store)'") && $0.contains("stack traceback") })
        #expect(world.reports.first?.contains("bad 1") == true)
        world.host.flushErrors()
        #expect(world.reports.last?.contains("the same error 1 more time (subscriber of '\(store)')") == true)
    }

    @Test("a subscriber cancelled by an earlier one while a change is told does not hear it, nor any later",
          arguments: stores)
    func cancelledWhileTold(store: String, action: String) throws {
        try defineLuaStore()
        try world.run(#"""
        heard = {}
        flux.subscribe("\#(store)", function(state)
          heard[#heard + 1] = "a" .. state.count
          if state.count == 1 then second:cancel() end
        end)
        second = flux.subscribe("\#(store)", function(state) heard[#heard + 1] = "b" .. state.count end)
        flux.subscribe("\#(store)", function(state) heard[#heard + 1] = "c" .. state.count end)
        heard = {}
        flux.dispatch("\#(action)")
        flux.dispatch("\#(action)")
        """#)
        #expect(try world.run("return table.concat(heard, ' '), second:active()") == [.string("a1 c1 a2 c2"), .boolean(false)])
    }

    @Test("a subscriber that cancels itself hears no more; one subscribed while a change is told hears it once, as it subscribes",
          arguments: stores)
    func cancelAndSubscribeWhileTold(store: String, action: String) throws {
        try defineLuaStore()
        try world.run(#"""
        heard = {}
        once = flux.subscribe("\#(store)", function(state)
          heard[#heard + 1] = "once" .. state.count
          if state.count == 1 then
            once:cancel()
            flux.subscribe("\#(store)", function(state, previous)
              heard[#heard + 1] = "new" .. state.count .. "/" .. (previous and previous.count or "-")
            end)
          end
        end)
        flux.subscribe("\#(store)", function(state) heard[#heard + 1] = "b" .. state.count end)
        heard = {}
        flux.dispatch("\#(action)")
        flux.dispatch("\#(action)")
        """#)
        #expect(try world.run("return table.concat(heard, ' ')") == [.string("once1 new1/- b1 b2 new2/1")])
        #expect(try world.run("return #flux.subscriptions('\(store)')") == [.integer(2)])
    }

    @Test("each subscriber's previous is the state it heard last, for one subscribed between changes too",
          arguments: stores)
    func previousPerSubscriber(store: String, action: String) throws {
        try defineLuaStore()
        try world.run(#"""
        heard = {}
        local function listen(name)
          return function(state, previous)
            heard[#heard + 1] = name .. state.count .. "/" .. (previous and previous.count or "-")
          end
        end
        flux.subscribe("\#(store)", listen("a"))
        flux.dispatch("\#(action)")
        flux.subscribe("\#(store)", listen("b"))
        flux.dispatch("\#(action)")
        """#)
        #expect(try world.run("return table.concat(heard, ' ')") == [.string("a0/- a1/0 b1/- a2/1 b2/1")])
    }

    @Test("cancelling every subscriber of a store, then subscribing again, starts afresh", arguments: stores)
    func resubscribe(store: String, action: String) throws {
        try defineLuaStore()
        try world.run(#"""
        local subs = {}
        for i = 1, 5 do subs[i] = flux.subscribe("\#(store)", function() end) end
        for i = 1, 5 do subs[i]:cancel() end
        heard = {}
        flux.subscribe("\#(store)", function(state, previous)
          heard[#heard + 1] = state.count .. "/" .. (previous and previous.count or "-")
        end)
        flux.dispatch("\#(action)")
        """#)
        #expect(try world.run("return table.concat(heard, ' ')") == [.string("0/- 1/0")])
    }
}
