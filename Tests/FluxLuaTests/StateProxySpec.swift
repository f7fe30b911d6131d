import Flux
import Testing
@testable import FluxLua

/// A state whose hand-written `encode(to:)` nests containers around its plain fields, and whose key type
/// differs from the tally's.
struct ShelfState: Encodable, Equatable {
    var count = 0
    var title = "shelf"

    enum Keys: String, CodingKey { case before, count, inner, title, after }
    enum InnerKeys: String, CodingKey { case count }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var before = container.nestedUnkeyedContainer(forKey: .before)
        try before.encode(-1)
        try container.encode(count, forKey: .count)
        var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
        try inner.encode(-2, forKey: .count)
        try container.encode(title, forKey: .title)
        try container.encode(count * 10, forKey: .after)
    }
}

struct Shelve: Action {
    static let name = "shelf.add"
}

final class ShelfStore: Store<ShelfState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "shelf", state: ShelfState(), dispatcher: dispatcher)
        on(Shelve.self) { state, _ in
            state.count += 1
            state.title = "shelf \(state.count)"
        }
    }
}

/// Counts the states of a `CensusStore` still alive: each state holds a token of its own.
final class Census {
    var alive = 0
}

final class CensusToken {
    let census: Census
    init(_ census: Census) {
        self.census = census
        census.alive += 1
    }
    deinit { census.alive -= 1 }
}

struct CensusState: Encodable {
    var count = 0
    var token: CensusToken
    enum CodingKeys: CodingKey { case count }
}

struct Count: Action {
    static let name = "census.count"
}

final class CensusStore: Store<CensusState> {
    init(dispatcher: Dispatcher, census: Census) {
        super.init(name: "census", state: CensusState(token: CensusToken(census)), dispatcher: dispatcher)
        on(Count.self) { state, _ in
            state.count += 1
            state.token = CensusToken(census)
        }
    }
}

@Suite("Reading a Swift store's state from Lua")
struct StateProxySpec {
    let world = Harness()
    let shelf: ShelfStore

    init() {
        shelf = ShelfStore(dispatcher: world.dispatcher)
    }

    @Test("fields of two states of different types read in turn are each their own, whatever the order")
    func twoTypesInTurn() throws {
        try world.run(#"""
        flux.dispatch("tally.add", {by = 5})
        flux.dispatch("shelf.add")
        flux.subscribe("tally", function(state) tally_view = state end)
        flux.subscribe("shelf", function(state) shelf_view = state end)
        """#)
        let reads = try world.run(#"""
        return tally_view.count, shelf_view.count, shelf_view.after, tally_view.count, shelf_view.title,
               shelf_view.inner, shelf_view.before, tally_view.labels[1], shelf_view.missing, tally_view.count
        """#)
        #expect(reads == [.integer(5), .integer(1), .integer(10), .integer(5), .string("shelf 1"),
                          .nil, .nil, .nil, .nil, .integer(5)])
    }

    @Test("a state view kept from one change reads that change's state after later changes and collections")
    func keptViewReadsItsChange() throws {
        try world.run(#"""
        views = {}
        flux.subscribe("shelf", function(state) views[#views + 1] = state end)
        for _ = 1, 3 do flux.dispatch("shelf.add") end
        collectgarbage()
        """#)
        // views[1] is the state at subscription (count 0), views[2] the first change's.
        let reads = try world.run(#"""
        collectgarbage()
        return views[2].title, views[2].count, views[4].count, views[3].after, views[1].count
        """#)
        #expect(reads == [.string("shelf 1"), .integer(1), .integer(3), .integer(20), .integer(0)])
    }

    @Test("views of changes hundreds apart (in different batches of slots) behave alike: read, length, pairs, write refused")
    func viewsOfEveryBatchAlike() throws {
        try world.run(#"""
        views = {}
        flux.subscribe("shelf", function(state) views[#views + 1] = state end)
        for _ = 1, 300 do flux.dispatch("shelf.add") end
        collectgarbage()
        function describe(view)
          local keys = {}
          for key in pairs(view) do keys[#keys + 1] = key end
          table.sort(keys)
          return view.count .. " " .. view.title .. " #" .. #view .. " " .. table.concat(keys, ",") .. " " .. tostring(view)
        end
        """#)
        let described = try world.run("return describe(views[2]), describe(views[150]), describe(views[301])")
        #expect(described == [.string("1 shelf 1 #0 after,before,count,inner,title flux.state(shelf)"),
                              .string("149 shelf 149 #0 after,before,count,inner,title flux.state(shelf)"),
                              .string("300 shelf 300 #0 after,before,count,inner,title flux.state(shelf)")])
        for index in [2, 150, 301] {
            #expect(world.error("views[\(index)].count = 0").contains("read-only"))
            #expect(try world.run("return getmetatable(views[\(index)])") == [.string("flux.state")])
        }
    }

    @Test("a field read inside another state's read, through a subscriber the read sets off, is its own")
    func readsDoNotShareAField() throws {
        // Each subscriber reads its state and the other store's kept view between its own reads.
        try world.run(#"""
        flux.subscribe("tally", function(state) tally_view = state end)
        flux.subscribe("shelf", function(state)
          seen = {state.count, tally_view.count, state.title, tally_view.count, state.after}
        end)
        flux.dispatch("tally.add", {by = 2})
        flux.dispatch("shelf.add")
        flux.dispatch("shelf.add")
        """#)
        #expect(try world.run("return table.unpack(seen)") == [.integer(2), .integer(2), .string("shelf 2"), .integer(2), .integer(20)])
    }

    @Test("views two subscribers keep, collecting inside each, read the change each was given")
    func twoSubscribersKeepTheirChanges() throws {
        try world.run(#"""
        first, second = {}, {}
        flux.subscribe("shelf", function(state) first[#first + 1] = state; collectgarbage() end)
        flux.subscribe("shelf", function(state) second[#second + 1] = state; collectgarbage() end)
        for _ = 1, 3 do flux.dispatch("shelf.add") end
        """#)
        // first[1] is the state at the first subscription; second[1] at the second; then changes 1 to 3.
        let reads = try world.run(#"""
        collectgarbage()
        return first[2].count, second[2].count, second[3].count, first[4].title, second[4].after, first[1].count
        """#)
        #expect(reads == [.integer(1), .integer(1), .integer(2), .string("shelf 3"), .integer(30), .integer(0)])
    }

    @Test("a dispatch from a subscriber is a change of its own: the subscribers after it read the change they were given")
    func dispatchFromASubscriber() throws {
        try world.run(#"""
        counts, kept = {}, {}
        flux.subscribe("shelf", function(state)
          if state.count == 1 then flux.dispatch("shelf.add") end
        end)
        flux.subscribe("shelf", function(state) counts[#counts + 1] = state.count; kept[#kept + 1] = state end)
        flux.dispatch("shelf.add")
        """#)
        let reads = try world.run(#"""
        collectgarbage()
        return counts[1], counts[2], counts[3], kept[2].count, kept[2].title, kept[3].count
        """#)
        #expect(reads == [.integer(0), .integer(1), .integer(2), .integer(1), .string("shelf 1"), .integer(2)])
    }

    @Test("a view only a finalizer can reach reads its change there, after hundreds of changes made meanwhile")
    func viewReachedByAFinalizer() throws {
        // The collector brings the holder back for its finalizer, and the view with it; the changes the
        // finalizer makes first need new views, and so make the host look for states no view can reach.
        try world.run(#"""
        collectgarbage("stop") -- the full collection below is the one that finds the holder
        flux.subscribe("shelf", function(state)
          if state.count == 1 then
            setmetatable({view = state}, {__gc = function(holder)
              for _ = 1, 300 do flux.dispatch("shelf.add") end
              finalized = holder.view.title
            end})
          end
        end)
        for _ = 1, 100 do flux.dispatch("shelf.add") end
        collectgarbage() collectgarbage()
        collectgarbage("restart")
        """#)
        #expect(world.reports.isEmpty)
        #expect(try world.run("return finalized, flux.state('shelf').count") == [.string("shelf 1"), .integer(400)])
    }

    @Test("finalizers that make views while a view's slot or batch is being made leave every view reading its own change")
    func viewsMadeByFinalizersWhileAViewIsMade() throws {
        // A collector step at every allocation runs pending finalizers inside the host's own allocations:
        // those that start a batch of slots and make a view. Each finalizer makes a view of its own.
        try world.run(#"""
        kept, made = {}, 0
        function finalize()
          local subscription = flux.subscribe("shelf", function(state) made = made + 1 kept[made % 300 + 1] = state end)
          subscription:cancel()
        end
        flux.subscribe("shelf", function(state) kept[(state.count % 300) + 1] = state end)
        """#)
        try world.run(Harness.finalizerStorm(dispatching: "shelf.add", rounds: 10, objects: 5_000, dispatches: 400))
        #expect(world.reports.isEmpty, "\(world.reports)")
        #expect(try world.run("collectgarbage() return flux.state('shelf').count, made > 0") == [.integer(4_000), .boolean(true)])
        let reads = try world.run(#"""
        for i = 1, 4 do flux.dispatch("shelf.add") end
        collectgarbage()
        local wrong = 0
        for _, view in pairs(kept) do if view.title ~= "shelf " .. view.count and view.count ~= 0 then wrong = wrong + 1 end end
        return wrong
        """#)
        #expect(reads == [.integer(0)])
    }

    @Test("finalizers that run inside a read through field readers, and dispatch, leave every view reading its own change")
    func finalizersInsideAFieldRead() throws {
        // Reading `labels` pushes a table: a collector step there runs finalizers, which dispatch to the
        // same store (a new change, read by the same subscriber) and read views kept of older changes.
        try world.run(#"""
        kept, wrong, finalized, checked = {}, 0, 0, 0
        function finalize()
          finalized = finalized + 1
          flux.dispatch("tally.add")
          local entry = kept[finalized % 50 + 1]
          if entry then
            checked = checked + 1
            if entry.view.count ~= entry.count or #entry.view.labels ~= 0 then wrong = wrong + 1 end
          end
        end
        flux.subscribe("tally", function(state)
          local count = state.count
          local labels = state.labels
          if #labels ~= 0 or state.count ~= count or state.missing ~= nil or state[1] ~= nil then wrong = wrong + 1 end
          kept[count % 50 + 1] = {view = state, count = count}
        end)
        """#)
        try world.run(Harness.finalizerStorm(dispatching: "tally.add", rounds: 5, objects: 1_000, dispatches: 200))
        #expect(world.reports.isEmpty, "\(world.reports)")
        let (wrong, finalized, checked) = try (world.run("return wrong").first, world.run("return finalized").first,
                                               world.run("return checked").first)
        #expect(wrong == .integer(0))
        guard case let .integer(finalizers) = finalized, case let .integer(checks) = checked else {
            Issue.record("no counts: \(String(describing: finalized)), \(String(describing: checked))")
            return
        }
        #expect(finalizers >= 5_000 && checks > 0)
        #expect(world.tally.state.count == 1_000 + Int(finalizers))
    }

    @Test("finalizers that cancel a store's last subscriber while its change is being told, and subscribe anew, leave every store heard")
    func subscribersEmptiedByFinalizersWhileTold() throws {
        // The finalizer empties the store's list of Lua subscribers while that list's observer makes the
        // change's view, then subscribes elsewhere and again: the observer goes on with the emptied list.
        try world.run(#"""
        heard = 0
        main = flux.subscribe("shelf", function() heard = heard + 1 end)
        function finalize()
          if main:active() then main:cancel() end
          flux.subscribe("tally", function() end):cancel()
          main = flux.subscribe("shelf", function() heard = heard + 1 end)
        end
        """#)
        try world.run(Harness.finalizerStorm(dispatching: "shelf.add", rounds: 10, objects: 2_000, dispatches: 300))
        #expect(world.reports.isEmpty, "\(world.reports)")
        #expect(try world.run("local before = heard flux.dispatch('shelf.add') return flux.state('shelf').count, heard - before")
                == [.integer(3_001), .integer(1)])
    }

    @Test("a view's metamethods are out of reach, and its pairs iterator refuses anything but a view")
    func metamethodsOutOfReach() throws {
        try world.run(#"""
        flux.dispatch("shelf.add")
        flux.subscribe("shelf", function(state) shelf_view = state end)
        flux.store{name = "c", state = {n = 1, tags = {"x"}}, on = {}}
        flux.subscribe("c", function(state) lua_view = state end)
        """#)
        #expect(try world.run("return getmetatable(shelf_view), debug.getmetatable(shelf_view)") == [.string("flux.state"), .string("flux.state")])
        #expect(try world.run("return getmetatable(lua_view), debug.getmetatable(lua_view)") == [.string("flux.state"), .string("flux.state")])
        // The iterator `pairs` hands out is reachable: called by hand it reads only a view it is given.
        try world.run("iterate = pairs(shelf_view)")
        // Nothing of it hands out the views' metatable: the debug library reads no C function's upvalues.
        #expect(world.error("debug.getupvalue(iterate, 1)").contains("cannot read the upvalues of a C function"))
        #expect(world.error("debug.getupvalue(pairs(lua_view), 1)").contains("cannot read the upvalues of a C function"))
        #expect(world.error("iterate({}, nil)").contains("flux.state expected, got table"))
        #expect(world.error("iterate(newproxy and newproxy() or io.stdout, nil)").contains("flux.state expected"))
        // A Swift store's state is named flux.state as well: the error says which one it got.
        #expect(world.error("iterate(shelf_view, nil)").contains(
            "flux.state expected, got a Swift store's state (iterate it with what pairs(state) returns)"))
        #expect(try world.run(#"local k = iterate(lua_view, nil) return k == "n" or k == "tags""#) == [.boolean(true)])
        #expect(world.error("shelf_view.count = 5").contains("read-only"))
        #expect(world.error("lua_view.n = 5").contains("read-only"))
        #expect(try world.run("return shelf_view.count, lua_view.n, lua_view.tags[1]") == [.integer(1), .integer(1), .string("x")])
    }

    @Test("a script that replaces the global pairs cannot change what another script's pairs of a state view yields")
    func pairsNotHijacked() throws {
        try world.run(#"""
        flux.dispatch("shelf.add")
        flux.subscribe("shelf", function(state) shelf_view = state end)
        local pairs = pairs                  -- taken before another script replaces the global
        function fields() local t = {} for k, v in pairs(shelf_view) do t[#t + 1] = k .. "=" .. (type(v) == "userdata" and "view" or tostring(v)) end table.sort(t) return table.concat(t, " ") end
        """#)
        let honest: [LuaValue] = [.string("after=10 before=view count=1 inner=view title=shelf 1")]
        #expect(try world.run("return fields()") == honest)
        try world.run(#"pairs = function() return function(_, k) if k == nil then return "count", 999 end end, nil, nil end"#)
        #expect(try world.run("return fields()") == honest)
    }

    @Test("states whose views a script let go are released soon after, not when the table of states fills up")
    func droppedViewsLetTheirStatesGo() throws {
        let census = Census()
        _ = CensusStore(dispatcher: world.dispatcher, census: census)
        // Two thousand views kept make room for thousands of states; once they are dropped and collected,
        // the next changes must not keep every state until that room runs out.
        try world.run(#"""
        kept = {}
        flux.subscribe("census", function(state) if kept then kept[#kept + 1] = state end end)
        for _ = 1, 2000 do flux.dispatch("census.count") end
        kept = nil
        collectgarbage() collectgarbage()
        for i = 1, 1200 do
          flux.dispatch("census.count")
          if i % 100 == 0 then collectgarbage() end
        end
        """#)
        // What is left: the undo history's states, the views of the changes since the last collection.
        #expect(census.alive < 600, "\(census.alive) states alive")
        #expect(try world.run("collectgarbage() return flux.state('census').count") == [.integer(3_200)])
    }
}
