import Flux
import FluxLua
import FluxSession
import Foundation
import GRDB
import Testing

/// A large Lua state saved in pieces kept from save to save (only the runs of a large table that changed
/// are written again): whatever a line changes — a field deep in an item, special numbers and bytes, items
/// added, removed or shifted — the state restored after a restart is the one saved, and an undo after a
/// restart (the step's state read from its pieces and saved again as them) lands on the state before.
@Suite("A large Lua state saved in pieces")
struct SessionLuaPiecesSpec {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flux-pieces-\(UUID().uuidString)")

    /// 2,000 items of about 120 bytes (some 250 kB), with nested tables, and the handlers the specs use.
    static let define = #"""
    local items = {}
    for i = 1, 2000 do items[i] = {id = i, text = string.rep("x", 60), done = false, meta = {tags = {"a", "b", i}}} end
    flux.store{name = "big", state = {count = 0, items = items}, on = {
      ["big.touch"] = function(s, a) s.count = s.count + 1; s.items[a.i].done = not s.items[a.i].done; return s end,
      ["big.deep"] = function(s, a) s.items[a.i].meta.tags[2] = a.v; return s end,
      ["big.special"] = function(s, a)
        local it = s.items[a.i]
        it.f = 2^53; it.z = -0.0; it.inf = 1/0; it.ninf = -1/0; it.nan = 0/0; it.one = 1.0; it.b = "\xff\xfe"
        return s
      end,
      ["big.push"] = function(s, a) s.items[a.i] = {id = a.i, text = "new", meta = {tags = {"c"}}}; return s end,
      ["big.pop"] = function(s, a) s.items[a.i] = nil; return s end,
      ["big.front"] = function(s, a)
        for j = a.i, 1, -1 do s.items[j + 1] = s.items[j] end
        s.items[1] = {id = 0, text = "front"}
        return s
      end,
    }}
    -- The state as text that tells every value apart: keys sorted, numbers with their subtype and bits.
    function dump(v)
      local t = type(v)
      if t == "table" then
        local keys, parts = {}, {}
        for k in pairs(v) do keys[#keys + 1] = k end
        table.sort(keys, function(a, b) return dump(a) < dump(b) end)
        for _, k in ipairs(keys) do parts[#parts + 1] = dump(k) .. "=" .. dump(v[k]) end
        return "{" .. table.concat(parts, ",") .. "}"
      elseif t == "number" then
        if math.type(v) == "integer" then return "i" .. tostring(v) end
        if v ~= v then return "nan" end
        return "f" .. string.format("%a", v)
      elseif t == "string" then
        return (string.format("%q", v):gsub("[\128-\255]", function(c) return "\\" .. c:byte() end))
      end
      return tostring(v)
    end
    """#

    final class Messages {
        var all: [String] = []
    }

    func open(_ messages: Messages) throws -> (FluxHost, Session) {
        let dispatcher = Dispatcher()
        let host = FluxHost(dispatcher: dispatcher)
        host.report = { messages.all.append($0) }
        let session = try Session.open(name: "big", directory: folder, dispatcher: dispatcher) { messages.all.append($0) }
        _ = try host.vm.run(Self.define, chunkName: "big")
        session.restore()
        session.attach()
        return (host, session)
    }

    func line(_ host: FluxHost, _ session: Session, _ name: String, i: Int, v: LuaValue? = nil) throws {
        var payload: [LuaKey: LuaValue] = [.string("i"): .integer(i)]
        if let v { payload[.string("v")] = v }
        try host.dispatcher.dispatch(LuaAction(name: "big." + name, payload: .table(payload)))
        #expect(session.save())
    }

    func dump(_ host: FluxHost) throws -> String {
        try host.vm.run("return dump(flux.state('big'))", as: String.self)
    }

    func chunkRows(_ session: Session) throws -> Int {
        try DatabaseQueue(path: session.path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM chunk") ?? 0 }
    }

    @Test("whatever a line changes in a large state, a restart restores exactly the state saved, and a one-field line writes a few pieces")
    func restoresExactly() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let messages = Messages()
        var saved: String
        var before = 0
        do {
            let (host, session) = try open(messages)
            try line(host, session, "touch", i: 1)
            try line(host, session, "touch", i: 1000)
            try line(host, session, "deep", i: 1500, v: .string("deep"))
            try line(host, session, "special", i: 700)
            try line(host, session, "touch", i: 701)
            try line(host, session, "push", i: 2001)
            try line(host, session, "push", i: 2002)
            try line(host, session, "pop", i: 2002)
            try line(host, session, "touch", i: 1999)
            try line(host, session, "front", i: 2001)
            try line(host, session, "deep", i: 3, v: .number(0.5))
            saved = try dump(host)
            session.close()
            before = try chunkRows(session)
        }
        do {
            let (host, session) = try open(messages)
            #expect(try dump(host) == saved)
            // A one-field line writes the pieces around that field, not the state's 250 kB again.
            try line(host, session, "touch", i: 10)
            try line(host, session, "touch", i: 1200)
            let one = try chunkRows(session)
            try line(host, session, "touch", i: 1300)
            #expect(try chunkRows(session) - one <= 4, "pieces a one-field line wrote")
            #expect(one > before)
            saved = try dump(host)
            session.close()
        }
        let (host, session) = try open(messages)
        defer { session.close() }
        #expect(try dump(host) == saved)
        #expect(try host.vm.run("local it = flux.state('big').items[701]; return math.type(it.f) .. ' ' .. math.type(it.one) .. ' ' .. tostring(1/it.z) .. ' ' .. #it.b", as: String.self)
            == "float float -inf 2")
        #expect(messages.all.isEmpty, "\(messages.all)")
    }

    @Test("an undo after a restart lands on the state before, and is saved so: the next restart has it, and redo goes forward")
    func undoAfterRestart() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let messages = Messages()
        var states: [String] = []
        do {
            let (host, session) = try open(messages)
            for (index, i) in [5, 1500, 5, 42].enumerated() {
                try line(host, session, index == 2 ? "special" : "touch", i: i)
                states.append(try dump(host))
            }
            session.close()
        }
        do {
            let (host, session) = try open(messages)
            #expect(try dump(host) == states[3])
            #expect(try host.dispatcher.undo())
            #expect(try dump(host) == states[2])
            #expect(session.save())
            #expect(try host.dispatcher.undo())
            #expect(try dump(host) == states[1])
            #expect(session.save())
            session.close()
        }
        do {
            let (host, session) = try open(messages)
            #expect(try dump(host) == states[1])
            #expect(try host.dispatcher.redo())
            #expect(try dump(host) == states[2])
            #expect(try host.dispatcher.redo())
            #expect(try dump(host) == states[3])
            session.close()
        }
        #expect(messages.all.isEmpty, "\(messages.all)")
    }
}
