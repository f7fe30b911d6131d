import Flux
import Foundation
import Testing
@testable import FluxLua

/// A Lua action's payload is written in one pass into the line's bytes: the same bytes as the form
/// chosen by looking first (plain JSON, or the pairs form for integer keys and whole floats), so old
/// logs and sessions read the same and a replay gives back the same payload.
@Suite("Lua payload writer")
struct LuaPayloadWriterSpec {
    /// The text the payload was written as before: the form chosen by looking first, then written whole.
    static func reference(_ payload: LuaValue) throws -> String {
        if payload.hasIntegerKeys || payload.hasWholeFloat || LuaAction.isPairsForm(payload) {
            return "{" + JSONText.quote(LuaStateText.format) + ":" + (try payload.pairsJSON()) + "}"
        }
        return try payload.json()
    }

    /// A random payload: tables of 0 to 12 keys (some integer), lists, and odd values.
    fileprivate static func payload(_ rng: inout SplitMix, depth: Int = 0) -> LuaValue {
        let strings = ["", "a", "é", "t1", "\"q\"", "back\\slash", "line\nbreak", "\u{2028}", "\u{7F}", "tab\t", "日本", "z"]
        func value() -> LuaValue {
            switch rng.next() % (depth < 3 ? 9 : 6) {
            case 0: .integer(Int(bitPattern: UInt(rng.next())))
            case 1: .integer(Int(rng.next() % 1000))
            case 2: .number([2.0, -0.0, 0.5, 9_007_199_254_740_992, 1e300, 1.5, -2e-7, 1_795_000_000.25][Int(rng.next() % 8)])
            case 3: .number(Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF | (rng.next() & (1 << 63))))
            case 4: .string(strings[Int(rng.next() % UInt64(strings.count))])
            case 5: .boolean(rng.next() % 2 == 0)
            case 6: .array((0 ..< rng.next() % 4).map { _ in payload(&rng, depth: depth + 1) })
            default: payload(&rng, depth: depth + 1)
            }
        }
        var fields: [LuaKey: LuaValue] = [:]
        for _ in 0 ..< rng.next() % 13 {
            let key: LuaKey = rng.next() % 10 == 0 ? .integer(Int(rng.next() % 5)) : .string(strings[Int(rng.next() % UInt64(strings.count))] + String(rng.next() % 20))
            fields[key] = value()
        }
        return .table(fields)
    }

    @Test("random payloads (0 to 12 keys, nested, integer keys, whole floats, odd strings) → the same bytes as before")
    func sameBytes() throws {
        var rng = SplitMix(seed: 35)
        var payloads: [LuaValue] = [
            .table([:]), .table(["a": 1]), .table(["b": 1, "a": 2]), .table(["by": 7, "tag": "t7"]),
            .table([.string(LuaStateText.format): .integer(1)]), .table([.integer(10): "x"]),
            .table(["v": .number(9_007_199_254_740_992)]), .table(["v": .number(-0.0), "w": .number(2.0)]),
            .table(["é": 1, "e\u{301}x": 2, "Z": 3, "a": 4]),
        ]
        for _ in 0 ..< 3_000 { payloads.append(Self.payload(&rng)) }
        for payload in payloads {
            let action = LuaAction(name: "p.set", payload: payload)
            var bytes: [UInt8] = [0x2A]
            try action.writePayloadJSON(into: &bytes)
            let expected = try Self.reference(payload)
            #expect(String(decoding: bytes.dropFirst(), as: UTF8.self) == expected)
            #expect(try action.payloadJSON() == expected)
        }
    }

    @Test("a payload with no JSON form throws as before, and leaves the buffer as it was")
    func unencodable() throws {
        for payload: LuaValue in [.table(["v": .number(.infinity)]), .table([.integer(1): .number(.nan)]),
                                  .table(["a": .integer(1), "b": .opaque("function")])] {
            var bytes: [UInt8] = [0x2A]
            #expect(throws: (any Error).self) { try LuaAction(name: "p.set", payload: payload).writePayloadJSON(into: &bytes) }
            #expect(throws: (any Error).self) { try Self.reference(payload) }
            #expect(ActionLogEntry(action: LuaAction(name: "p.set", payload: payload), time: 0).line
                == #"{"name":"p.set","unencodable":true}"#)
        }
    }

    @Test("special floats, 2^53, integers past it and odd strings: dispatched, logged, replayed to the same payloads")
    func replay() throws {
        func world() throws -> Harness {
            let world = Harness()
            try world.run(#"""
            flux.store{name = "p", state = {n = 0}, on = {
              ["p.set"] = function(s, a) s.n = s.n + 1; s["p" .. s.n] = a; return s end,
            }}
            """#)
            return world
        }
        let original = try world()
        var lines: [String] = []
        SettledCommits.of(original.dispatcher).clock = { 1_795_000_000.012 }
        _ = ActionRecorder(recording: original.dispatcher) { lines.append($0) }
        try original.run(#"""
        flux.dispatch("p.set", {a = 2.0, b = -0.0, c = 2^53, d = 9007199254740993, e = 0.1, f = -1e-300})
        flux.dispatch("p.set", {s = "quote \" back \\ nl \n tab \t del \127 ls \u{2028}", t = "日本", [""] = 1})
        flux.dispatch("p.set", {list = {1, 2.5, "x", {k = 1}}, ["lua-pairs-1"] = 0})
        """#)
        #expect(lines.count == 3)
        #expect(lines.first == #"{"name":"p.set","payload":{"lua-pairs-1":[["a",2.0],["b",-0.0],["c",{"float":"9007199254740992.0"}],["d",9007199254740993],["e",0.1],["f",-1e-300]]},"time":1795000000.012}"#)
        #expect(lines.dropFirst().first == #"{"name":"p.set","payload":{"":1,"s":"quote \" back \\ nl \n tab \t del \u007f ls \u2028","t":"日本"},"time":1795000000.012}"#)

        let replica = try world()
        try ActionReplayer(dispatcher: replica.dispatcher, decode: replica.host.logDecoder)
            .replay(contentsOf: lines.joined(separator: "\n"))
        let read = #"""
        local s = flux.state("p")
        return s.n, math.type(s.p1.a), s.p1.a, 1 / s.p1.b, math.type(s.p1.c), s.p1.c, math.type(s.p1.d), s.p1.d, s.p1.e, s.p1.f,
          s.p2.s, s.p2.t, s.p2[""], math.type(s.p3.list[2]), s.p3.list[4].k, s.p3["lua-pairs-1"]
        """#
        let expected: [LuaValue] = [.integer(3), .string("float"), .number(2.0), .number(-.infinity), .string("float"),
                                    .number(9_007_199_254_740_992), .string("integer"), .integer(9_007_199_254_740_993),
                                    .number(0.1), .number(-1e-300), .string("quote \" back \\ nl \n tab \t del \u{7F} ls \u{2028}"),
                                    .string("日本"), .integer(1), .string("float"), .integer(1), .integer(0)]
        #expect(try original.run(read) == expected)
        #expect(try replica.run(read) == expected)
    }
}
