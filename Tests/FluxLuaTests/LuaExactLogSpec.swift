import Flux
import Foundation
import Testing
@testable import FluxLua

@Suite("Exact logs and saved states of Lua stores")
struct LuaExactLogSpec {
    /// A harness with a Lua store `m` that keeps the last payload's `v` and sums every `v`.
    static func world() throws -> Harness {
        let world = Harness()
        try world.run(#"""
        flux.store{name = "m", state = {last = 0, sum = 0}, on = {
          ["m.set"] = function(s, a) s.last = a.v; s.sum = s.sum + a.v; s.kind = math.type(a.v); return s end,
        }}
        """#)
        return world
    }

    @Test("a float holding a whole number stays a float, an integer past 2^53 stays exact: dispatched, logged, replayed")
    func numberSubtypes() throws {
        let original = try Self.world()
        var lines: [String] = []
        SettledCommits.of(original.dispatcher).clock = { 0 }
        _ = ActionRecorder(recording: original.dispatcher) { lines.append($0) }
        try original.run(#"flux.dispatch("m.set", {v = 2.0}) flux.dispatch("m.set", {v = 9007199254740993})"#)
        #expect(try original.run("return flux.state('m').kind") == [.string("integer")])
        #expect(lines[0] == #"{"name":"m.set","payload":{"v":2.0},"time":0.0}"#)
        #expect(lines[1] == #"{"name":"m.set","payload":{"v":9007199254740993},"time":0.0}"#)
        try original.run(#"flux.undo()"#)
        #expect(try original.run("return flux.state('m').kind, flux.state('m').sum") == [.string("float"), .number(2.0)])
        try original.run(#"flux.redo()"#)

        let replica = try Self.world()
        try ActionReplayer(dispatcher: replica.dispatcher, decode: replica.host.logDecoder)
            .replay(contentsOf: lines.joined(separator: "\n"))
        let read = "return flux.state('m').last, math.type(flux.state('m').sum), flux.state('m').sum"
        #expect(try replica.run(read) == original.run(read))
        #expect(try Array(replica.run(read).prefix(2)) == [.integer(9007199254740993), .string("float")])
    }

    @Test("integer payload keys stay integers: the handler sees them, the log keeps them, a replay gives the same state")
    func integerKeys() throws {
        func world() throws -> Harness {
            let world = Harness()
            try world.run(#"""
            flux.store{name = "k", state = {seen = ""}, on = {
              ["k.put"] = function(s, a)
                local keys = {}
                for key, value in pairs(a.items) do keys[#keys + 1] = (math.type(key) or type(key)) .. " " .. tostring(key) .. "=" .. tostring(value) end
                table.sort(keys)
                s.seen = table.concat(keys, ", ")
                s.items = a.items
                return s
              end,
            }}
            """#)
            return world
        }
        let original = try world()
        var lines: [String] = []
        SettledCommits.of(original.dispatcher).clock = { 0 }
        _ = ActionRecorder(recording: original.dispatcher) { lines.append($0) }
        try original.run(#"""
        flux.dispatch("k.put", {items = {[10] = "x", [-1] = "y", [0] = "z"}})
        flux.dispatch("k.put", {items = {[1] = "a", [2] = "b"}})
        flux.dispatch("k.put", {items = {[1] = "a", [3] = "c", name = "n"}})
        """#)
        #expect(try original.run("return flux.state('k').seen") == [.string("integer 1=a, integer 3=c, string name=n")])
        try original.run("flux.undo() flux.undo()")
        #expect(try original.run("return flux.state('k').seen") == [.string("integer -1=y, integer 0=z, integer 10=x")])
        try original.run("flux.redo() flux.redo()")
        #expect(lines[0] == #"{"name":"k.put","payload":{"lua-pairs-1":[["items",[[-1,"y"],[0,"z"],[10,"x"]]]]},"time":0.0}"#)
        #expect(lines[1] == #"{"name":"k.put","payload":{"items":["a","b"]},"time":0.0}"#, "a list stays a JSON list")

        let replica = try world()
        try ActionReplayer(dispatcher: replica.dispatcher, decode: replica.host.logDecoder)
            .replay(contentsOf: lines.joined(separator: "\n"))
        let read = "return flux.state('k').seen, flux.state('k').items[3], flux.state('k').items['3']"
        #expect(try replica.run(read) == original.run(read))
        #expect(try replica.run(read) == [.string("integer 1=a, integer 3=c, string name=n"), .string("c"), .nil])
        try replica.run("flux.undo() flux.undo()")
        #expect(try replica.run("return flux.state('k').items[10]") == [.string("x")])
    }

    @Test("a payload whose one key is the pairs form's name is logged in that form, and replays as it was")
    func pairsFormName() throws {
        let original = Harness()
        let replica = Harness()
        let store = #"flux.store{name = "k", state = {}, on = {["k.put"] = function(s, a) s.v = a["lua-pairs-1"] return s end}}"#
        try original.run(store)
        try replica.run(store)
        var lines: [String] = []
        SettledCommits.of(original.dispatcher).clock = { 0 }
        _ = ActionRecorder(recording: original.dispatcher) { lines.append($0) }
        try original.run(#"flux.dispatch("k.put", {["lua-pairs-1"] = {{1, "a"}}})"#)
        #expect(lines == [#"{"name":"k.put","payload":{"lua-pairs-1":[["lua-pairs-1",[[1,[[1,1],[2,"a"]]]]]]},"time":0.0}"#])
        try ActionReplayer(dispatcher: replica.dispatcher, decode: replica.host.logDecoder).replay(contentsOf: lines[0])
        #expect(try replica.run("return flux.state('k').v[1][2], #flux.state('k').v") == [.string("a"), .integer(1)])
    }

    @Test("a replayed payload is checked as flux.dispatch checks it: an unknown field is refused")
    func payloadChecks() throws {
        let world = try Self.world()
        let replayer = ActionReplayer(dispatcher: world.dispatcher, decode: world.host.logDecoder)
        func error(_ log: String) -> String {
            do {
                try replayer.replay(contentsOf: log)
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(error(#"{"name":"tally.add","payload":{"by":1,"lable":"x"}}"#)
            == "line 1: tally.add: field 'lable': unknown field, did you mean 'label'? (fields: by, label)")
        #expect(error(#"{"name":"tally.add","payload":{"by":1.5}}"#) == "line 1: tally.add: field 'by': expected an integer, got 1.5")
        #expect(world.tally.state == TallyState())
    }

    @Test("a Lua state saved as text comes back the same: subtypes, keys of every type, bytes, infinities")
    func stateText() throws {
        let world = try Self.world()
        let lua = world.host.vm.stack
        try world.run(#"""
        saved = {1, 2.0, -0.0, 9007199254740993, math.mininteger, math.maxinteger, 1/0, -1/0, 0.1,
                 [2.5] = "float key", [true] = false, [-7] = "negative", name = "x\0y\255", nested = {deep = {{}}}}
        """#)
        _ = lua.getGlobal("saved")
        let text = try LuaStateText.encode(at: -1, on: lua)
        lua.pop()
        try LuaStateText.push(text, on: lua)
        lua.setGlobal("restored")
        #expect(try world.run(#"""
        local function same(a, b)
          if type(a) ~= "table" or type(b) ~= "table" then
            return math.type(a) == math.type(b) and (a == b or (a ~= a and b ~= b)) and (a ~= 0 or 1/a == 1/b)
          end
          for k, v in pairs(a) do if not same(v, b[k]) then return false end end
          for k in pairs(b) do if a[k] == nil then return false end end
          return true
        end
        return same(saved, restored)
        """#) == [.boolean(true)])
        try world.run("cyclic = {} cyclic.me = cyclic; withFunction = {f = print}")
        for (name, message) in [("cyclic", "state.me contains itself (a cycle): it cannot be saved"),
                                ("withFunction", "state.f is a function: it cannot be saved")] {
            _ = lua.getGlobal(name)
            #expect(throws: LuaJSONError.self) { try LuaStateText.encode(at: -1, on: lua) }
            do { _ = try LuaStateText.encode(at: -1, on: lua) } catch { #expect("\(error)" == message) }
            lua.pop()
        }
    }
}
