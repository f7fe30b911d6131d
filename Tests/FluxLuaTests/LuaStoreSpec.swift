import Flux
import Testing
@testable import FluxLua

/// Lua stores behave like Swift stores: a change in place counts, an equal state is no change, declared
/// payload fields are checked, and `flux.group` is all or nothing.
@Suite("Lua stores and groups")
struct LuaStoreSpec {
    let world = Harness()

    @Test("a handler that changes its state in place and returns nothing changes the store, and makes an undo step")
    func inPlaceChangeCounts() throws {
        try world.run(#"""
        flux.store{name = "todo", state = {items = {}}, on = {
          ["todo.add"] = function(state, action) table.insert(state.items, action.title) end,
        }}
        heard = 0
        flux.subscribe("todo", function() heard = heard + 1 end)
        flux.dispatch("todo.add", {title = "milk"})
        """#)
        #expect(try world.run("return flux.state('todo').items[1], heard") == [.string("milk"), .integer(2)])
        #expect(world.dispatcher.history.undoLabels == ["todo.add"])
    }

    @Test("the subscribers of one change share its read-only state; one kept reads that state after later changes and undo")
    func sharedStateView() throws {
        try world.run(#"""
        flux.store{name = "c", state = {n = 0, tags = {"a"}}, on = {
          ["c.up"] = function(state) state.n = state.n + 1 end,
        }}
        seen = {}
        flux.subscribe("c", function(state) seen[1] = state end)
        flux.subscribe("c", function(state) seen[2] = state end)
        flux.dispatch("c.up")
        kept = seen[1]
        flux.dispatch("c.up")
        flux.undo()
        flux.undo()
        """#)
        #expect(try world.run("return rawequal(kept, seen[2]), kept.n, kept.tags[1], seen[1].n, rawequal(seen[1], seen[2])")
            == [.boolean(false), .integer(1), .string("a"), .integer(0), .boolean(true)])
        #expect(world.error("kept.n = 5").contains("read-only"))
        #expect(world.error("rawset(kept, 'n', 5)").contains("table expected"))
        #expect(try world.run("return kept.n, flux.state('c').n") == [.integer(1), .integer(0)])
    }

    @Test("a published state's pairs iterator called by hand reads only the state and key it is given: more arguments, fewer, or another object")
    func viewIteratorByHand() throws {
        try world.run(#"""
        flux.store{name = "c", state = {n = 0}, on = {["c.up"] = function(state) state.n = state.n + 1 end}}
        flux.subscribe("c", function(state) view = state end)
        flux.dispatch("c.up")
        iterate = pairs(view)
        """#)
        #expect(try world.run("return iterate(view, nil, 5)") == [.string("n"), .integer(1)])
        #expect(try world.run("return iterate(view, nil, {}, 'x')") == [.string("n"), .integer(1)])
        #expect(try world.run("return iterate(view)") == [.string("n"), .integer(1)])
        #expect(try world.run("return iterate(view, 'n', 5)") == [.nil])
        #expect(world.error("iterate({}, nil, 5)").contains("flux.state expected, got table"))
        #expect(world.error("iterate(view, 'missing', 5)").contains("invalid key to 'next'"))
    }

    @Test("a new state deep-equal to the old one notifies nobody and makes no undo step")
    func equalStateIsNoChange() throws {
        try world.run(#"""
        flux.store{name = "s", state = {n = 1, tags = {"a", "b"}}, on = {
          ["s.same"] = function(state) return {n = 1, tags = {"a", "b"}} end,
          ["s.touch"] = function(state) state.n = 2 state.n = 1 state.tags[1] = "a" end,
          ["s.change"] = function(state) state.tags[2] = "c" end,
        }}
        heard = 0
        flux.subscribe("s", function() heard = heard + 1 end)
        flux.dispatch("s.same")
        flux.dispatch("s.touch")
        """#)
        #expect(try world.run("return heard") == [.integer(1)])
        #expect(world.dispatcher.history.undoLabels.isEmpty)
        try world.run("flux.dispatch('s.change')")
        #expect(try world.run("return heard, flux.state('s').tags[2]") == [.integer(2), .string("c")])
        #expect(world.dispatcher.history.undoLabels == ["s.change"])
    }

    @Test("a field set to what it held, or back, or to an equal table, is no change; a field taken away and another added is one")
    func equalFieldsAreNoChange() throws {
        try world.run(#"""
        flux.store{name = "s", state = {n = 1, tags = {"a"}, x = true}, on = {
          ["s.same"] = function(state) state.n = 1 end,
          ["s.back"] = function(state) state.n = 2 state.x = false state.n = 1 state.x = true end,
          ["s.refused"] = function(state) pcall(function() state[nil] = 1 end) state.x = true end,
          ["s.equal"] = function(state) state.tags = {"a"} end,
          ["s.raw"] = function(state) state.n = 5 rawset(state, "z", 1) end,
          ["s.swap"] = function(state) state.x = nil state.y = true end,
        }}
        heard = 0
        flux.subscribe("s", function() heard = heard + 1 end)
        flux.dispatch("s.same")
        flux.dispatch("s.back")
        flux.dispatch("s.refused")
        flux.dispatch("s.equal")
        """#)
        #expect(try world.run("return heard") == [.integer(1)])
        #expect(world.dispatcher.history.undoLabels.isEmpty)
        #expect(world.error("flux.dispatch('s.raw')").contains("a state draft was changed with rawset"))
        #expect(try world.run("return heard, flux.state('s').n") == [.integer(1), .integer(1)])
        try world.run("flux.dispatch('s.swap')")
        #expect(try world.run("local s = flux.state('s') return heard, s.x, s.y, s.n, s.tags[1]")
            == [.integer(2), .nil, .boolean(true), .integer(1), .string("a")])
        #expect(world.dispatcher.history.undoLabels == ["s.swap"])
        try world.dispatcher.undo()
        #expect(try world.run("local s = flux.state('s') return s.x, s.y") == [.boolean(true), .nil])
    }

    @Test("a handler sees the action whether it names it, takes it among varargs, or is a C function; one that declares only the state changes it all the same")
    func handlersSeeTheAction() throws {
        try world.run(#"""
        flux.store{name = "h", state = {n = 0, got = ""}, on = {
          ["h.named"] = function(s, a) s.got = a.type .. a.by end,
          ["h.varargs"] = function(...) local s, a = ... s.got = a.type .. a.by end,
          ["h.state"] = function(s) s.n = s.n + 1 end,
          ["h.c"] = table.insert,
        }}
        flux.dispatch("h.named", {by = 1})
        named = flux.state("h").got
        flux.dispatch("h.varargs", {by = 2})
        varargs = flux.state("h").got
        flux.dispatch("h.state")
        flux.dispatch("h.c")
        """#)
        #expect(try world.run("return named, varargs, flux.state('h').n, flux.state('h')[1].type")
            == [.string("h.named1"), .string("h.varargs2"), .integer(1), .string("h.c")])
    }

    @Test("the debug library reaches no published state: not through a draft's iterator, a C function's locals, a view's user values, nor the function running the handler")
    func debugLibraryReachesNoState() throws {
        try world.run(#"""
        flux.store{name = "d", state = {n = 0}, on = {
          ["d.upvalue"] = function(s) local _, t = debug.getupvalue(pairs(s), 2) t.n = 99 end,
          ["d.local"] = function(s) local _, t = debug.getlocal(2, 2) t.n = 99 end,
          ["d.setlocal"] = function(s) debug.setlocal(2, 4, {}) s.n = 1 end,
          ["d.invoke"] = function(s) invoke = debug.getinfo(2, "f").func s.n = 1 end,
          ["d.up"] = function(s) s.n = s.n + 1 end,
        }}
        flux.subscribe("d", function(state) viewed = {pcall(debug.getuservalue, state, 1)} end)
        errors = {}
        for _, action in ipairs{"d.upvalue", "d.local", "d.setlocal"} do
          errors[#errors + 1] = select(2, pcall(flux.dispatch, action))
        end
        flux.dispatch("d.invoke")
        flux.dispatch("d.up")
        flux.undo()
        flux.undo()
        """#)
        let errors = try world.run("return errors[1], errors[2], errors[3], viewed[2]")
        for (error, expected) in zip(errors, ["cannot read the upvalues of a C function", "cannot reach the locals of a C function",
                                              "cannot reach the locals of a C function", "cannot read the user values of the host's userdata"]) {
            guard case let .string(message) = error else { Issue.record("no error: \(error)"); continue }
            #expect(message.contains(expected), "\(message)")
        }
        #expect(try world.run("return flux.state('d').n, viewed[1], invoke") == [.integer(0), .boolean(false), .nil])
    }

    @Test("drafts a handler kept are dead while later handlers run, its own store's and another's: an error, and no state changes")
    func keptDraftsStayDead() throws {
        try world.run(#"""
        flux.store{name = "a", state = {n = 0, box = {v = 0}}, on = {
          ["a.keep"] = function(s) kept, keptbox = s, s.box s.n = s.n + 1 end,
          ["a.use"] = function(s)
            local box = s.box
            errors = {select(2, pcall(function() kept.n = 99 end)), select(2, pcall(function() keptbox.v = 99 end))}
            s.n = s.n + 1
          end,
        }}
        flux.store{name = "b", state = {n = 0}, on = {["b.use"] = function(s)
          other = select(2, pcall(function() return kept.n end))
          s.n = 1
        end}}
        flux.dispatch("a.keep")
        flux.dispatch("a.use")
        flux.dispatch("b.use")
        """#)
        #expect(try world.run("return errors[1], errors[2], other").allSatisfy {
            if case let .string(message) = $0 { return message.contains("a state draft was used after its handler returned") }
            return false
        })
        #expect(try world.run("local a = flux.state('a') return a.n, a.box.v, flux.state('b').n")
            == [.integer(2), .integer(0), .integer(1)])
    }

    @Test("declared payload fields are checked as a Swift action's: unknown field, wrong type, missing field refused; optional may be left out")
    func declaredFields() throws {
        try world.run(#"""
        flux.store{name = "todo", state = {items = {}},
          actions = {["todo.add"] = {title = "string", due = "number?"}},
          on = {["todo.add"] = function(state, action) table.insert(state.items, {title = action.title, due = action.due}) end}}
        flux.dispatch("todo.add", {title = "milk"})
        flux.dispatch("todo.add", {title = "bread", due = 3})
        """#)
        #expect(world.error("flux.dispatch('todo.add', {title = 'x', colour = 'red'})").contains("field 'colour': unknown field (fields: due, title)"))
        #expect(world.error("flux.dispatch('todo.add', {title = 4})").contains("'title'"))
        #expect(world.error("flux.dispatch('todo.add', {})").contains("'title'"))
        #expect(world.error("flux.dispatch('todo.add', {title = 'x', due = 'soon'})").contains("'due'"))
        #expect(try world.run("return #flux.state('todo').items, flux.state('todo').items[2].due") == [.integer(2), .number(3)])
        #expect(world.error(#"flux.store{name = "bad", actions = {["bad.x"] = {a = "colour"}}, on = {["bad.x"] = function() end}}"#)
            .contains("must be one of string, number, integer, boolean, table"))
        #expect(world.host.payloadFields(of: "todo.add")?.description == "{due: number?, title: string}")
    }

    @Test("a declared field is plain data as an undeclared payload is: a table field that is no table, holds a function or a cycle, a key that is neither string nor integer, is nested too deep, or a number that is not finite is refused and changes nothing")
    func declaredFieldsArePlainData() throws {
        try world.run(#"""
        flux.store{name = "box", state = {},
          actions = {["box.put"] = {v = "table?", n = "number?"}},
          on = {["box.put"] = function(state, action) state.v = action.v state.n = action.n end}}
        flux.dispatch("box.put", {v = {a = {1, 2}}, n = 1.5})
        deep = {} local t = deep for i = 1, 300 do t.x = {} t = t.x end
        cycle = {} cycle.self = cycle
        """#)
        let refused = [
            ("{v = 'text'}", "expected a table, got string"),
            ("{v = {f = print}}", "function cannot be sent"),
            ("{v = cycle}", "cycle"),
            ("{v = {[true] = 1}}", "boolean key"),
            ("{v = deep}", "nested deeper than"),
            ("{v = {x = 0/0}}", "cannot be logged"),
            ("{n = 1/0}", "cannot be logged"),
        ]
        for (payload, message) in refused {
            let error = world.error("flux.dispatch('box.put', \(payload))")
            #expect(error.contains(message), "\(payload): \(error)")
        }
        #expect(try world.run("local s = flux.state('box') return s.v.a[2], s.n") == [.integer(2), .number(1.5)])
    }

    @Test("flux.group returns its function's results; when the function raises, every action it dispatched is rolled back and no undo step remains")
    func groupAllOrNothing() throws {
        try world.run(#"""
        flux.store{name = "c", state = {n = 0}, on = {["c.up"] = function(s) s.n = s.n + 1 end}}
        heard = {}
        flux.subscribe("c", function(state) heard[#heard + 1] = state.n end)
        a, b = flux.group("two", function() flux.dispatch("c.up") flux.dispatch("c.up") return "done", 2 end)
        ok = pcall(flux.group, "broken", function()
          flux.dispatch("c.up")
          flux.dispatch("tally.add", {by = 5})
          error("halfway")
        end)
        """#)
        #expect(try world.run("return a, b, ok, flux.state('c').n") == [.string("done"), .integer(2), .boolean(false), .integer(2)])
        #expect(world.tally.state.count == 0)
        #expect(try world.run("return heard[#heard]") == [.integer(2)])
        #expect(world.dispatcher.history.undoLabels == ["two"])
    }

    @Test("flux.group called from a subscriber groups the actions it queues: one undo step")
    func groupFromSubscriber() throws {
        try world.run(#"""
        flux.store{name = "c", state = {n = 0}, on = {["c.up"] = function(s) s.n = s.n + 1 end}}
        flux.subscribe("tally", function(state, previous)
          if previous then flux.group("echo", function() flux.dispatch("c.up") flux.dispatch("c.up") end) end
        end)
        flux.dispatch("tally.add")
        """#)
        #expect(try world.run("return flux.state('c').n") == [.integer(2)])
        #expect(world.dispatcher.history.undoLabels == ["tally.add", "echo"])
        try world.dispatcher.undo()
        #expect(try world.run("return flux.state('c').n") == [.integer(0)])
    }

    @Test("a handler's error shows the handler's own traceback: its chunk and line")
    func handlerTraceback() throws {
        try world.host.run(#"""
        flux.store{name = "c", state = {}, on = {["c.fail"] = function(s)
          local function inner() error("deep trouble") end
          inner()
        end}}
        """#, chunkName: "@plugins/c.lua")
        do {
            try world.run("flux.dispatch('c.fail')")
            Issue.record("no error")
        } catch {
            let text = world.host.describe(error)
            #expect(text.contains("plugins/c.lua:2: deep trouble"))
            #expect(text.contains("plugins/c.lua:3"), "the handler's frame: \(text)")
        }
    }

    @Test("a new state keeps what it shares and what holds itself: a table in two places, a table and a state inside themselves")
    func sharingAndCyclesSurviveFreezing() throws {
        let dispatcher = Dispatcher()
        let host = FluxHost(dispatcher: dispatcher)
        try host.run(#"""
        flux.store{name = "web", state = {n = 0}, on = {
          ["web.link"] = function(s)
            local t = {} t.self = t
            s.t = t s.again = t
            s.me = s
          end,
          ["web.bump"] = function(s) local t, again = s.t, s.again s.n = s.n + 1 again.x = s.n end,
        }}
        sub = flux.subscribe("web", function(state) seen = state end)
        flux.dispatch("web.link")
        """#)
        #expect(try host.run("return seen.t.self == seen.t, seen.again == seen.t, seen.me.me == seen.me")
            == [.boolean(true), .boolean(true), .boolean(true)])
        // Written through one of its places, a table held twice and read through both changes in both.
        try host.run(#"flux.dispatch("web.bump")"#)
        #expect(try host.run("return seen.n, seen.t.x, seen.again == seen.t")
            == [.integer(1), .integer(1), .boolean(true)])
        try dispatcher.undo()
        #expect(try host.run("return seen.n, seen.t.x, seen.t.self == seen.t") == [.integer(0), .nil, .boolean(true)])
    }

    @Test("a finalizer that writes a kept draft while its handler's result is frozen gets an error and changes no state")
    func keptDraftWrittenWhileFrozen() throws {
        // A collector step at every allocation runs the finalizers inside the freeze's own allocations,
        // after the handler has returned: its draft is dead there, as it is after the dispatch.
        try world.run(#"""
        flux.store{name = "q", state = {n = 0, t = {a = 1}}, on = {
          w = function(s)
            running = true kept = s s.n = s.n + 1
            local t = {a = s.n} for i = 1, 30 do t[i] = {i} end s.t = t
            running = false
          end,
        }}
        written, lowered, last = 0, 0, -1
        flux.subscribe("q", function(v) if v.n < last then lowered = lowered + 1 end last = v.n end)
        function finalize()
          if not running and kept and pcall(function() kept.n = -100 end) then written = written + 1 end
        end
        """#)
        try world.run(Harness.finalizerStorm(dispatching: "w", rounds: 5, objects: 3_000, dispatches: 200))
        #expect(world.reports.isEmpty)
        #expect(try world.run("return written, lowered, flux.state('q').n, last") == [.integer(0), .integer(0), .integer(1_000), .integer(1_000)])
    }

    @Test("a finalizer that dispatches while a handler's result is frozen is refused, and every state is what the dispatches made")
    func finalizerDispatchesWhileFrozen() throws {
        // A collector step at every allocation runs the finalizers inside the handlers' and the freeze's
        // own allocations: a dispatch from one there is refused; from one run between dispatches, it runs.
        try world.run(#"""
        flux.store{name = "q", state = {n = 0, t = {a = 1}}, on = {
          w = function(s)
            s.n = s.n + 1
            local t = {a = s.n} for i = 1, 30 do t[i] = {i} end s.t = t
          end,
        }}
        dispatched, refused, lowered, last = 0, 0, 0, -1
        flux.subscribe("q", function(v) if v.n < last then lowered = lowered + 1 end last, seen = v.n, v end)
        function finalize()
          local ok, message = pcall(flux.dispatch, "w")
          if ok then dispatched = dispatched + 1 else refused = refused + 1 refusal = message end
        end
        """#)
        try world.run(Harness.finalizerStorm(dispatching: "w", rounds: 5, objects: 200, dispatches: 200))
        #expect(world.reports.isEmpty)
        #expect(try world.run("return dispatched + refused, refused > 0, lowered") == [.integer(1_000), .boolean(true), .integer(0)])
        #expect(try world.run("return refusal") == [.string("cannot dispatch 'w' while 'w' is being handled")])
        #expect(try world.run("return flux.state('q').n == 1000 + dispatched, last == flux.state('q').n, flux.state('q').t.a == last")
            == [.boolean(true), .boolean(true), .boolean(true)])
        #expect(try world.run("return pcall(function() seen.n = 0 end), seen.n == last") == [.boolean(false), .boolean(true)])
    }

    @Test("a write whose copy of the state runs out of memory fails and counts nothing; the handler goes on with its state as it was")
    func firstWriteOutOfMemory() throws {
        // The handler fills the memory cap but for room for calls, not for a copy of its large state: its
        // first write fails; once it lets go of what it held, the same write makes the copy.
        try world.run(#"""
        local state = {count = 0}
        for i = 1, 2000 do state["f" .. i] = i end
        flux.store{name = "big", state = state, on = {["big.up"] = function(s)
          local chain
          local function grow() chain = {next = chain, pad = string.rep("x", 4096)} end
          local function write() s.count = s.count + 1 end
          while pcall(grow) do end
          chain = chain.next
          collectgarbage()
          local ok, message = pcall(write)
          chain = nil
          collectgarbage()
          failed = {ok, message}
          s.count = s.count + 10
        end}}
        """#)
        world.host.vm.memoryLimit = world.host.vm.usedMemory + (256 << 10)
        try world.run("flux.dispatch('big.up')")
        world.host.vm.memoryLimit = nil
        #expect(try world.run("return failed[1], failed[2]") == [.boolean(false), .string("not enough memory")])
        #expect(try world.run("local big = flux.state('big') return big.count, big.f1, big.f2000")
            == [.integer(10), .integer(1), .integer(2000)])
        try world.dispatcher.undo()
        #expect(try world.run("return flux.state('big').count") == [.integer(0)])
    }

    @Test("a handler's writes to its state's fields and to tables inside it all land, in either order, and undo takes them all back")
    func fieldAndNestedWrites() throws {
        try world.run(#"""
        flux.store{name = "w", state = {n = 0, box = {v = 0}, list = {1}}, on = {
          ["w.fieldFirst"] = function(s) s.n = s.n + 1 s.box.v = s.n table.insert(s.list, s.n) s.n = s.n + 1 end,
          ["w.nestedFirst"] = function(s) s.box.v = 10 s.n = 10 s.list[1] = s.n s.box.w = s.n end,
          ["w.readFirst"] = function(s) local box = s.box s.n = 20 box.v = s.n end,
        }}
        """#)
        try world.run("flux.dispatch('w.fieldFirst')")
        #expect(try world.run("local w = flux.state('w') return w.n, w.box.v, #w.list, w.list[2]")
            == [.integer(2), .integer(1), .integer(2), .integer(1)])
        try world.run("flux.dispatch('w.nestedFirst')")
        #expect(try world.run("local w = flux.state('w') return w.n, w.box.v, w.box.w, w.list[1], w.list[2]")
            == [.integer(10), .integer(10), .integer(10), .integer(10), .integer(1)])
        try world.run("flux.dispatch('w.readFirst')")
        #expect(try world.run("local w = flux.state('w') return w.n, w.box.v, w.box.w") == [.integer(20), .integer(20), .integer(10)])
        try world.dispatcher.undo()
        try world.dispatcher.undo()
        try world.dispatcher.undo()
        #expect(try world.run("local w = flux.state('w') return w.n, w.box.v, w.box.w, #w.list")
            == [.integer(0), .integer(0), .nil, .integer(1)])
    }

    @Test("a finalizer that writes a live draft while a first write copies its table keeps its write, and the handler's")
    func finalizerWritesDuringFirstCopy() throws {
        // A collector step at every allocation runs finalizers inside the copies the handler's first writes
        // make, of the state and of a table in it: the drafts are live there, so what the finalizer writes
        // is part of the new state.
        try world.run(#"""
        flux.store{name = "f", state = {n = 0, box = {v = 0}}, on = {
          f = function(s)
            live = s s.n = s.n + 1
            livebox = s.box livebox.v = livebox.v + 1
            live, livebox = nil, nil
          end,
        }}
        written, boxed = 0, 0
        function finalize()
          if live then live.m = (live.m or 0) + 1 written = written + 1 end
          if livebox then livebox.w = (livebox.w or 0) + 1 boxed = boxed + 1 end
        end
        """#)
        // Where the finalizers fall depends on every allocation before: storms of other sizes until both
        // drafts were written during a handler.
        var storms = 0
        for objects in [3_000, 1_000, 5_000, 300, 2_000, 7_000] {
            try world.run(Harness.finalizerStorm(dispatching: "f", rounds: 5, objects: objects, dispatches: 200))
            storms += 1
            if try world.run("return written > 0 and boxed > 0") == [.boolean(true)] { break }
        }
        #expect(world.reports.isEmpty)
        let result = try world.run("local f = flux.state('f') return written, f.m, boxed, f.box.w, f.n, f.box.v")
        #expect(result[0] != .integer(0) && result[2] != .integer(0), "the finalizers never ran inside a handler's writes")
        #expect(result[1] == result[0])
        #expect(result[3] == result[2])
        #expect(result[4] == .integer(1_000 * storms) && result[5] == .integer(1_000 * storms))
    }

    @Test("a saved state's format names the initial state's fields (and a declared version): any Lua state is read, one of another shape converted")
    func stateFormatNamesFields() throws {
        try world.run(#"flux.store{name = "c", state = {n = 0, tags = {}, [1] = "x"}, on = {["c.up"] = function(s) s.n = s.n + 1 end}}"#)
        let store = try #require(world.dispatcher.store(named: "c") as? LuaStore)
        #expect(store.stateFormat == "lua-pairs-1 {n: number, tags: table}")
        #expect(store.reads(format: "lua-pairs-1 {n: number, tags: table}"))
        #expect(store.reads(format: "lua-pairs-1"))
        #expect(store.reads(format: "lua-pairs-1 {count: number}"), "converted: LuaStoreMigrationSpec")
        #expect(!store.reads(format: "json"))
        try world.run(#"flux.store{name = "c", version = 2, state = {n = 0, tags = {}, [1] = "x"}, on = {}}"#)
        #expect(store.stateFormat == "lua-pairs-1 {n: number, tags: table} v2")
    }
}
