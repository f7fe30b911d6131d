import Flux
import Testing
@testable import FluxLua

/// A Lua store's initial state is plain data: another store's state view (a userdata) nested in it is
/// refused when the store is defined, with its path — as a table key is — instead of a state that can
/// never be saved (and an undo history that from then on is not saved either).
@Suite("A Lua store's initial state holds plain data only")
struct PlainStateSpec {
    let world = Harness()

    @Test("another store's view nested in the initial state is refused, with its path; nothing is defined",
          arguments: ["tally", "a"])
    func viewInInitialState(source: String) throws {
        try world.run(#"""
            flux.store{name = "a", state = {n = 1}}
            flux.subscribe("\#(source)", function(state) seen = state end)
            """#)
        let message = world.error(#"flux.store{name = "b", state = {players = {{name = "x", other = seen}}}}"#)
        #expect(message.contains("state.players[1].other is a userdata"), "\(message)")
        #expect(message.contains("flux.state(name)"), "\(message)")
        #expect(try world.run(#"return pcall(flux.state, "b")"#).first == false)
    }

    @Test("plain data, shared tables and cycles are still accepted")
    func plainData() throws {
        try world.run(#"""
            local shared = {1, 2}
            local cyclic = {}
            cyclic.self = cyclic
            flux.store{name = "b", state = {a = shared, b = shared, c = cyclic, [1] = true, ["two words"] = 2.5}}
            """#)
        #expect(try world.run(#"return flux.state("b").a[2]"#) == [2])
    }
}
