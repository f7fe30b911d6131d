import Flux
import Foundation
import Testing
@testable import FluxLua

@Suite("Whole floats past 2^53, and saved states past the limit")
struct LuaWholeFloatSpec {
    static func world() throws -> Harness {
        let world = Harness()
        try world.run(#"""
        flux.store{name = "m", state = {last = 0}, on = {
          ["m.set"] = function(s, a) s.last = a.v; s.kind = math.type(a.v); return s end,
        }}
        """#)
        return world
    }

    @Test("a float 2^53 (and -2^60) is logged as a float and replays as one, in payloads and in saved states")
    func wholeFloat() throws {
        let original = try Self.world()
        var lines: [String] = []
        SettledCommits.of(original.dispatcher).clock = { 0 }
        _ = ActionRecorder(recording: original.dispatcher) { lines.append($0) }
        try original.run(#"flux.dispatch("m.set", {v = 2^53}) flux.dispatch("m.set", {v = -2.0^60})"#)
        #expect(lines[0] == #"{"name":"m.set","payload":{"lua-pairs-1":[["v",{"float":"9007199254740992.0"}]]},"time":0.0}"#)
        let replica = try Self.world()
        try ActionReplayer(dispatcher: replica.dispatcher, decode: replica.host.logDecoder).replay(contentsOf: lines[0])
        #expect(try replica.run("return flux.state('m').kind, flux.state('m').last") == [.string("float"), .number(9007199254740992)])

        let store = try #require(original.dispatcher.store(named: "m") as? LuaStore)
        let text = try store.encodeState(store.snapshot())
        #expect(text.contains(#"{"float":"-1.152921504606847e+18"}"#), "\(text)")
        store.restore(try store.decodeState(text))
        #expect(try original.run("return math.type(flux.state('m').last)") == [.string("float")])
    }

    @Test("a saved state of more than two million values is refused before it is parsed, saying so")
    func overLimit() throws {
        let pairs = String(repeating: "[1,2],", count: 2_000_001)
        #expect(LuaStateText.pairCount("[" + pairs + "[1,2]]", over: LuaValue.maximumValues))
        #expect(!LuaStateText.pairCount(#"[["a","[[[[[["],["b",[[1,2],[3,4]]]]"#, over: 4))
        #expect(LuaStateText.pairCount(#"[["a","x"],["b",[[1,2],[3,4]]]]"#, over: 3))
        let world = try Self.world()
        let store = try #require(world.dispatcher.store(named: "m") as? LuaStore)
        let error = try #require(throws: (any Error).self) { try store.decodeState("[" + pairs + "[1,2]]") }
        #expect("\(error)".contains("more than 2000000 values"), "\(error)")
    }
}
