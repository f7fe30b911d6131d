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
        // A 24 MiB cap and a state of 40,000 numbers (≈0.6 MiB a copy): 40 kept copies would not fit.
        let host = FluxHost(dispatcher: dispatcher, vm: LuaVM(memoryLimit: 24 << 20))
        dispatcher.history.memoryLimit = 8 << 20
        try host.run(#"""
        local items = {}
        for i = 1, 40000 do items[i] = i end
        flux.store{
          name = "big",
          state = {n = 0, items = items},
          on = {["big.touch"] = function(s) s.n = s.n + 1 return s end},
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
}
