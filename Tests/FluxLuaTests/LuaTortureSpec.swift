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
