import Flux
import Testing
@testable import FluxLua

/// Hostile callbacks under the collector torture: a VM that runs a whole collection cycle, finalizers
/// included, after every allocation (``LuaVM/collectsAtEveryAllocation``), so that whatever a callback or
/// a finalizer can free between two lines of the bridge is freed there. Each case is what a script can do
/// at some point of a dispatch, a tell or a render; none may crash, and the stores end as a user expects.
/// The unsafe idioms the bridge keeps (`CContext.swift`, `HostReference.swift`, `Store.swift`) name
/// this spec: it fails when their invariants break.
@Suite("Callbacks that cancel, redefine and collect at every point, under the collector torture")
struct LuaTortureSpec {
    final class World {
        let dispatcher = Dispatcher()
        let tally: TallyStore
        var host: FluxHost?
        var reports: [String] = []

        init() {
            tally = TallyStore(dispatcher: dispatcher)
            let host = FluxHost(dispatcher: dispatcher, vm: LuaVM(collectsAtEveryAllocation: true))
            host.report = { [weak self] in self?.reports.append($0) }
            self.host = host
        }

        @discardableResult
        func run(_ source: String) throws -> [LuaValue] { try host!.run(source) }
    }

    @Test("the VM the specs use collects at every allocation")
    func tortured() throws {
        let world = World()
        #expect(world.host?.vm.collectsAtEveryAllocation == true)
        #expect(try world.run("""
            local weak = setmetatable({}, {__mode = "v"})
            weak[1] = {}
            local other = {}
            return weak[1] == nil
            """) == [true])
    }

    /// A Swift store (`tally`) and a Lua store (`c`) alike.
    static let stores = [("tally", "tally.add"), ("c", "c.up")]

    @Test("a subscriber that cancels its store's last subscription while told, directly or by <close>",
          arguments: stores)
    func lastSubscriberCancelsItself(store: String, action: String) throws {
        let world = World()
        try world.run(#"""
            flux.store{name = "c", state = {count = 0}, on = {["c.up"] = function(s) s.count = s.count + 1 end}}
            heard = 0
            local sub
            sub = flux.subscribe("\#(store)", function(state, previous) heard = heard + 1 if previous then sub:cancel() end end)
            flux.dispatch("\#(action)")
            flux.dispatch("\#(action)")
            local closing
            closing = flux.subscribe("\#(store)", function(state, previous)
              heard = heard + 1
              if previous then local c <close> = closing end
            end)
            flux.dispatch("\#(action)")
            flux.dispatch("\#(action)")
            again = flux.subscribe("\#(store)", function(state) heard = heard + 1 end)
            flux.dispatch("\#(action)")
            """#)
        #expect(try world.run("return heard, again:active()") == [6, true])
        #expect(world.reports.isEmpty)
    }

    @Test("finalizers that cancel, subscribe, dispatch and collect run at every allocation of a dispatch and a tell",
          arguments: stores)
    func finalizersEverywhere(store: String, action: String) throws {
        let world = World()
        try world.run(#"""
            flux.store{name = "c", state = {count = 0}, on = {["c.up"] = function(s) s.count = s.count + 1 end}}
            subs, heard, armed = {}, 0, 0
            local function hostile()
              armed = armed + 1
              if armed > 60 then return end
              setmetatable({}, {__gc = function()
                for _, s in ipairs(flux.subscriptions("\#(store)")) do s:cancel() end
                subs[#subs + 1] = flux.subscribe("\#(store)", function() heard = heard + 1 end)
                pcall(flux.dispatch, "\#(action)")
                collectgarbage()
                hostile()
              end})
            end
            hostile()
            for i = 1, 20 do
              flux.subscribe("\#(store)", function(state, previous)
                local junk = {state = state, previous = previous}
                collectgarbage()
              end)
              flux.dispatch("\#(action)")
            end
            """#)
        let count = try world.run(#"return flux.state("\#(store)").count"#)
        #expect(count.first.flatMap { if case let .integer(n) = $0 { n } else { nil } }.map { $0 >= 20 } == true)
    }

    @Test("a view whose render cancels and redefines, watched while the store changes")
    func renderThatCancels() throws {
        let world = World()
        try world.run(#"""
            heard = 0
            local sub = flux.subscribe("tally", function() heard = heard + 1 end)
            flux.view("v", {store = "tally", render = function(state)
              for _, s in ipairs(flux.subscriptions("tally")) do s:cancel() end
              flux.view("v", {store = "tally", render = function(state) collectgarbage() return {sections = {}} end})
              collectgarbage()
              return {sections = {}}
            end})
            local watch = flux.watch("v", function() collectgarbage() end)
            for i = 1, 5 do flux.dispatch("tally.add") end
            """#)
        #expect(world.tally.state.count == 5)
    }

    @Test("observers that cancel each other and redefine their store while told, undone and redone", arguments: stores)
    func observersCancelEachOther(store: String, action: String) throws {
        let world = World()
        // Swift observers, told borrowed from their list: the second cancels all three, itself included.
        var told = [0, 0, 0]
        var subscriptions: [StoreSubscription] = []
        subscriptions.append(world.tally.subscribe { _ in told[0] += 1 })
        subscriptions.append(world.tally.subscribe { _ in
            told[1] += 1
            if told[1] == 3 { for subscription in subscriptions { subscription.cancel() } }
        })
        subscriptions.append(world.tally.subscribe { _ in told[2] += 1 })
        let add = try world.dispatcher.registry.decode("tally.add", json: "{}")
        for _ in 0 ..< 4 { try world.dispatcher.dispatch(add) }
        #expect(told == [3, 3, 2]) // each its first state; the third not told after the second cancelled it
        try world.run(#"""
            local function define() flux.store{name = "c", state = {count = 0}, on = {["c.up"] = function(s) s.count = s.count + 1 end}} end
            define()
            heard, subs = 0, {}
            for i = 1, 3 do
              subs[i] = flux.subscribe("\#(store)", function(state, previous)
                heard = heard + 1
                if previous then
                  for _, s in ipairs(flux.subscriptions("\#(store)")) do s:cancel() end
                  subs = nil
                  pcall(define) -- the store told now defined again while it tells (or refused)
                  collectgarbage()
                end
              end)
            end
            for i = 1, 4 do flux.dispatch("\#(action)") end
            for i = 1, 4 do pcall(flux.undo) end
            for i = 1, 4 do pcall(flux.redo) end
            collectgarbage()
            """#)
        // Three first states, then the first subscriber told of a change cancelled all three.
        #expect(try world.run("return heard") == [4])
        #expect(told == [3, 3, 2])
        #expect(world.reports.isEmpty)
    }

    @Test("stores that wait for each other: the cycle is named, and nothing changed")
    func waitForCycle() throws {
        let world = World()
        try world.run(#"""
            flux.store{name = "a", wait_for = {"b"}, state = {n = 0}, on = {["ab.go"] = function(s) collectgarbage() s.n = s.n + 1 end}}
            flux.store{name = "b", wait_for = {"a"}, state = {n = 0}, on = {["ab.go"] = function(s) collectgarbage() s.n = s.n + 1 end}}
            """#)
        for _ in 0 ..< 3 {
            #expect(try world.run(#"""
                local ok, message = pcall(flux.dispatch, "ab.go")
                collectgarbage()
                return ok, tostring(message):find("waitFor cycle: a → b → a", 1, true) ~= nil, flux.state("a").n, flux.state("b").n
                """#) == [false, true, 0, 0])
        }
    }

    @Test("the host dropped while subscriptions, views and finalizers still hold it")
    func hostDroppedFirst() throws {
        let world = World()
        try world.run(#"""
            keep = flux.subscribe("tally", function(state) collectgarbage() end)
            setmetatable({}, {__gc = function() pcall(flux.dispatch, "tally.add") end})
            flux.view("v", {store = "tally", render = function(state) return {sections = {}} end})
            """#)
        world.host = nil // the VM closes: finalizers call into a host that is going
        try world.dispatcher.dispatch(try world.dispatcher.registry.decode("tally.add", json: "{}"))
        #expect(world.tally.state.count >= 1)
    }
}
