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
}
