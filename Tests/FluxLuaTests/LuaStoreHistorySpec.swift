import Flux
import FluxLua
import Testing

@Suite("Lua store undo history")
struct LuaStoreHistorySpec {
    @Test("a large Lua state with many undo steps stays usable: old steps go, with one note")
    func largeStateStaysUsable() throws {
        let dispatcher = Dispatcher()
        var notes: [String] = []
        dispatcher.onNote = { notes.append($0) }
        // A 24 MiB cap and a state of 40,000 numbers (≈0.6 MiB a copy), each step writing into the list,
        // so each keeps its own copy of it: 40 kept copies would not fit.
        let host = FluxHost(dispatcher: dispatcher, vm: LuaVM(memoryLimit: 24 << 20))
        dispatcher.history.memoryLimit = 8 << 20
        try host.run(#"""
        local items = {}
        for i = 1, 40000 do items[i] = i end
        flux.store{
          name = "big",
          state = {n = 0, items = items},
          on = {["big.touch"] = function(s) s.n = s.n + 1 s.items[1] = s.n return s end},
        }
        for i = 1, 40 do flux.dispatch("big.touch") end
        """#)
        let count = try host.run(#"return flux.state("big").n"#)
        #expect(count == [.integer(40)])
        let steps = dispatcher.history.undoLabels.count
        #expect(steps > 0 && steps < 40)
        #expect(dispatcher.history.cost <= 8 << 20)
        #expect(notes.count == 1)
        try dispatcher.undo()
        #expect(try host.run(#"return flux.state("big").n"#) == [.integer(39)])
    }

    @Test("a step that sets fields of a wide Lua state costs the state it replaced, a header and a slot a pair; setting a field back is no step")
    func wideStateSteps() throws {
        let dispatcher = Dispatcher()
        let host = FluxHost(dispatcher: dispatcher)
        try host.run(#"""
        local state = {list = {1, 2, 3}}
        for i = 1, 39 do state["f" .. i] = i end
        flux.store{
          name = "wide",
          state = state,
          on = {
            ["wide.set"] = function(s) s.f1 = s.f1 + 1 s.f39 = -s.f39 end,
            ["wide.back"] = function(s) local f = s.f2 s.f2 = "x" s.f2 = f end,
            ["wide.grow"] = function(s) s.f40 = true end,
          },
        }
        for i = 1, 3 do flux.dispatch("wide.set") end
        flux.dispatch("wide.back")
        flux.dispatch("wide.grow")
        """#)
        #expect(dispatcher.history.undoLabels == ["wide.set", "wide.set", "wide.set", "wide.grow"])
        #expect(dispatcher.history.cost == 4 * (56 + 32 * 40))
        #expect(try host.run(#"local s = flux.state("wide") return s.f1, s.f39, s.f40, s.list[3]"#)
            == [.integer(4), .integer(-39), .boolean(true), .integer(3)])
        while try dispatcher.undo() {}
        #expect(try host.run(#"local s = flux.state("wide") return s.f1, s.f39, s.f40"#) == [.integer(1), .integer(39), .nil])
    }

    @Test("a step that changes one field of a large Lua state counts what it changed, not the whole state")
    func sharedPartsAreNotCounted() throws {
        let dispatcher = Dispatcher()
        var notes: [String] = []
        dispatcher.onNote = { notes.append($0) }
        let host = FluxHost(dispatcher: dispatcher)
        try host.run(#"""
        local items = {}
        for i = 1, 40000 do items[i] = i end
        flux.store{
          name = "big",
          state = {n = 0, items = items},
          on = {["big.touch"] = function(s) s.n = s.n + 1 return s end},
        }
        for i = 1, 100 do flux.dispatch("big.touch") end
        """#)
        #expect(dispatcher.history.undoLabels.count == 100)
        // The list is shared by every state: each step keeps only its small top table.
        #expect(dispatcher.history.cost < 100 * 1024)
        #expect(notes.isEmpty)
        while try dispatcher.undo() {}
        #expect(try host.run(#"return flux.state("big").n"#) == [.integer(0)])
    }

    @Test("each undo step of a Lua store costs the state it replaced beside the state after it, after undo and redo too")
    func stepCostIsTheReplacedState() throws {
        let dispatcher = Dispatcher()
        let host = FluxHost(dispatcher: dispatcher)
        // Each action adds a field: the state a step replaces holds one pair fewer than the state after it,
        // so counting the wrong one of the two, or the shared list, shows.
        try host.run(#"""
        local items = {}
        for i = 1, 1000 do items[i] = i end
        flux.store{
          name = "grow",
          state = {n = 0, items = items},
          on = {["grow.add"] = function(s) s.n = s.n + 1 s["k" .. s.n] = true end},
        }
        for i = 1, 10 do flux.dispatch("grow.add") end
        """#)
        // Before action i the top table holds n, items and i - 1 added fields: a header and a slot a pair.
        let expected = (1...10).reduce(0) { $0 + 56 + 32 * ($1 + 1) }
        #expect(dispatcher.history.cost == expected)
        while try dispatcher.undo() {}
        #expect(dispatcher.history.cost == 0)
        while try dispatcher.redo() {}
        #expect(dispatcher.history.cost == expected)
        #expect(try host.run(#"return flux.state("grow").n"#) == [.integer(10)])
    }

    @Test("states kept while many more steps come and go are restored exactly: a failed all-or-nothing run, then undo")
    func keptStatesSurviveManySteps() throws {
        struct Stop: Error {}
        let dispatcher = Dispatcher()
        let host = FluxHost(dispatcher: dispatcher)
        try host.run(#"""
        flux.store{
          name = "tally",
          state = {n = 0, log = {}},
          on = {
            ["tally.add"] = function(s) s.n = s.n + 1 end,
            ["tally.note"] = function(s) s.log[#s.log + 1] = s.n end,
          },
        }
        flux.dispatch("tally.add")
        flux.dispatch("tally.note")
        flux.dispatch("tally.add")
        """#)
        // The run keeps the state now and the undo steps while 300 states more are made, and 200 of them
        // dropped from the history again.
        #expect(throws: Stop.self) {
            try dispatcher.allOrNothing {
                for i in 1 ... 300 { try host.dispatch(actionNamed: i % 3 == 0 ? "tally.note" : "tally.add", payloadSource: nil) }
                throw Stop()
            }
        }
        let state = #"local s = flux.state("tally") return s.n, #s.log, s.log[1]"#
        #expect(try host.run(state) == [.integer(2), .integer(1), .integer(1)])
        for i in 1 ... 10 { try host.dispatch(actionNamed: i % 2 == 0 ? "tally.note" : "tally.add", payloadSource: nil) }
        #expect(try host.run(state) == [.integer(7), .integer(6), .integer(1)])
        for _ in 1 ... 10 { try dispatcher.undo() }
        #expect(try host.run(state) == [.integer(2), .integer(1), .integer(1)])
        while try dispatcher.undo() {}
        #expect(try host.run(state) == [.integer(0), .integer(0), .nil])
    }

    @Test("with the undo history full, every later step of a Lua store is still undone to the state before it")
    func fullHistoryUndoesEachStep() throws {
        let dispatcher = Dispatcher()
        let host = FluxHost(dispatcher: dispatcher)
        dispatcher.history.limit = 20
        try host.run(#"""
        flux.store{name = "steps", state = {n = 0}, on = {["steps.add"] = function(s) s.n = s.n + 1 end}}
        for _ = 1, 50 do flux.dispatch("steps.add") end
        """#)
        // The oldest steps went as new ones came, each new one in the place of one dropped.
        for n in (30 ..< 50).reversed() {
            #expect(try dispatcher.undo())
            #expect(try host.run(#"return flux.state("steps").n"#) == [.integer(n)])
        }
        #expect(try !dispatcher.undo())
        for _ in 1 ... 20 { _ = try dispatcher.redo() }
        #expect(try host.run(#"return flux.state("steps").n"#) == [.integer(50)])
    }
}
