import Flux
import Testing
@testable import FluxLua

/// `flux.derived`: a Lua store computed from other stores' states, again only in a dispatch that
/// changed one of them, in the same transaction and undo step.
@Suite("Lua derived stores")
struct LuaDerivedStoreSpec {
    let world = Harness()

    init() throws {
        try world.run(#"""
        flux.store{name = "todo", state = {items = {}, filter = "all"}, on = {
          ["todo.add"] = function(s, a) table.insert(s.items, {title = a.title, done = false}) end,
          ["todo.finish"] = function(s, a) s.items[a.index].done = true end,
          ["todo.touch"] = function(s) end,
        }}
        flux.store{name = "clock", state = {t = 0}, on = {["clock.tick"] = function(s) s.t = s.t + 1 end}}
        computed = 0
        flux.derived{name = "open", from = {"todo"}, compute = function(todo)
          computed = computed + 1
          local n = 0
          for _, item in ipairs(todo.items) do if not item.done then n = n + 1 end end
          return {count = n}
        end}
        heard = 0
        flux.subscribe("open", function() heard = heard + 1 end)
        """#)
    }

    @Test("adding a todo → the derived count changes in the same dispatch, and one undo step takes both back")
    func recomputesWithItsSource() throws {
        try world.run("flux.dispatch('todo.add', {title = 'milk'})")
        #expect(try world.run("return flux.state('open').count, heard") == [.integer(1), .integer(2)])
        #expect(world.dispatcher.history.undoLabels == ["todo.add"])
        try world.run("flux.undo()")
        #expect(try world.run("return flux.state('open').count, #flux.state('todo').items") == [.integer(0), .integer(0)])
    }

    @Test("a clock tick (not a source) → compute does not run and nobody hears of it")
    func notRecomputedForAnUnrelatedAction() throws {
        try world.run("before = computed  for i = 1, 10 do flux.dispatch('clock.tick') end")
        #expect(try world.run("return computed - before, heard") == [.integer(0), .integer(1)])
    }

    @Test("a handler that leaves the source unchanged → compute does not run")
    func unchangedSource() throws {
        try world.run("before = computed  flux.dispatch('todo.touch')")
        #expect(try world.run("return computed - before") == [.integer(0)])
    }

    @Test("a second todo → compute runs, and its equal result publishes nothing and adds no state to the undo step")
    func equalResultNotPublished() throws {
        try world.run(#"""
        flux.derived{name = "nonEmpty", from = {"todo"}, compute = function(todo)
          runs = (runs or 0) + 1
          return {any = #todo.items > 0}
        end}
        told = 0
        flux.subscribe("nonEmpty", function() told = told + 1 end)
        flux.dispatch('todo.add', {title = 'milk'})
        before, toldBefore = runs, told
        flux.dispatch('todo.add', {title = 'bread'})
        """#)
        #expect(try world.run("return runs - before, told - toldBefore, flux.state('nonEmpty').any") == [.integer(1), .integer(0), .boolean(true)])
        let changed = world.dispatcher.history.steps.undo.last?.changes.map(\.target.name) ?? []
        #expect(changed == ["todo", "open"])
    }

    @Test("compute raising an error → the action that changed its source is refused, and nothing changes")
    func failingComputeRollsBack() throws {
        try world.run(#"""
        flux.derived{name = "strict", from = {"todo"}, compute = function(todo)
          if #todo.items > 1 then error("at most one todo") end
          return {n = #todo.items}
        end}
        flux.dispatch('todo.add', {title = 'milk'})
        """#)
        #expect(world.error("flux.dispatch('todo.add', {title = 'bread'})").contains("at most one todo"))
        #expect(try world.run("return #flux.state('todo').items, flux.state('open').count, flux.state('strict').n")
            == [.integer(1), .integer(1), .integer(1)])
    }

    @Test("a store derived from a derived one and a Lua store → recomputed after both, in one dispatch")
    func chained() throws {
        try world.run(#"""
        flux.derived{name = "summary", from = {"open", "clock"}, compute = function(open, clock)
          return {text = open.count .. " open at " .. clock.t}
        end}
        flux.dispatch('todo.add', {title = 'milk'})
        flux.dispatch('clock.tick')
        """#)
        #expect(try world.run("return flux.state('summary').text") == [.string("1 open at 1")])
    }

    @Test("flux.derived refuses what it cannot take: an unknown field, no sources, an unknown store, a name of flux.store's")
    func refusals() throws {
        #expect(world.error("flux.derived{name = 'x', from = {'todo'}, compute = function() return {} end, on = {}}").contains("on"))
        #expect(world.error("flux.derived{name = 'x', from = {}, compute = function() return {} end}").contains("names no store"))
        #expect(world.error("flux.derived{name = 'x', from = {'nope'}, compute = function() return {} end}").contains("nope"))
        #expect(world.error("flux.derived{name = 'todo', from = {'clock'}, compute = function() return {} end}").contains("flux.store"))
        #expect(world.error("flux.derived{name = 'x', from = {'todo'}, compute = function() return 5 end}").contains("state table"))
        #expect(try world.run("return #flux.stores()") == [.integer(4)]) // and the harness's `tally`
    }

    @Test("defined again → the new compute runs at the next change of a source, the state kept until then")
    func redefined() throws {
        try world.run(#"""
        flux.dispatch('todo.add', {title = 'milk'})
        flux.derived{name = "open", from = {"todo"}, compute = function(todo) return {count = #todo.items * 10} end}
        """#)
        #expect(try world.run("return flux.state('open').count") == [.integer(1)])
        try world.run("flux.dispatch('todo.add', {title = 'bread'})")
        #expect(try world.run("return flux.state('open').count") == [.integer(20)])
    }
}
