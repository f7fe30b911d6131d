import Flux
import Testing
@testable import FluxLua

/// The cache that lets a one-field change of a large Lua state be saved in the runs that changed keeps a
/// large table by its place in a store's state: it must not keep the places a state no longer has, nor the
/// stores that are gone, or a long session's memory grows with every place it ever used.
@Suite("The text cache of large Lua states")
struct LuaStateTextCacheSpec {
    @Test("a large list moved to a new place at each line, or its store gone, leaves no old place behind")
    func placesForgotten() throws {
        let world = Harness()
        try world.run(#"""
        local function list(n) local l = {} for i = 1, n do l[i] = {id = i, text = string.rep("x", 20)} end return l end
        flux.store{name = "docs", state = {}, on = {
          ["docs.open"] = function(s, a) s["doc" .. a.n] = list(3000); s["doc" .. (a.n - 1)] = nil; return s end,
        }}
        flux.store{name = "other", state = {items = list(3000)}, on = {}}
        """#)
        let docs = try #require(world.dispatcher.store(named: "docs") as? LuaStore)
        let other = try #require(world.dispatcher.store(named: "other") as? LuaStore)
        _ = try other.encodeState(other.snapshot())
        for n in 1 ... 10 {
            try world.run("flux.dispatch('docs.open', {n = \(n)})")
            _ = try docs.encodeState(docs.snapshot())
            let places = try #require(world.host.stateTextCache).large.keys.sorted()
            #expect(places == ["docs\u{0}state.doc\(n)", "other\u{0}state.items"], "after line \(n)")
        }
        try world.dispatcher.unregister(try #require(world.dispatcher.token(named: "other")))
        _ = try docs.encodeState(docs.snapshot())
        #expect(try #require(world.host.stateTextCache).large.keys.sorted() == ["docs\u{0}state.doc10"])
    }
}
