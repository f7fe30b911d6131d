import Testing
@testable import FluxLua

private struct Filter: Codable, Equatable {
    var name: String
    var enabled: Bool
    var threshold: Double?
}

private struct AppState: Codable, Equatable {
    var title: String
    var count: Int
    var ratio: Double
    var whole: Double
    var flags: [Bool]
    var filters: [Filter]
    var tags: [String: Int]
    var note: String?
    var grid: [[Int]]
    var empty: [Int]
    var none: [String: String]
    var byID: [Int: String]
    var small: Int8
    var big: UInt64
    var single: Float
}

private let sample = AppState(
    title: "caf\u{E9} \u{1F30D} a\0b", count: 3, ratio: 0.25, whole: 2, flags: [true, false],
    filters: [Filter(name: "errors", enabled: true, threshold: 0.5), Filter(name: "warnings", enabled: false, threshold: nil)],
    tags: ["lua": 1, "swift": 2], note: nil, grid: [[1, 2], [3], []], empty: [], none: [:],
    byID: [1: "one", 10: "ten"], small: -8, big: 1 << 40, single: 1.5)

extension FluxLuaTests {
    @Suite("Encoding and decoding")
    struct Coding {
        @Test("a nested Codable struct survives a round trip through Lua")
        func roundTrip() throws {
            let vm = LuaVM()
            try vm.push(sample)
            #expect(try vm.decode(AppState.self, at: -1, root: "state") == sample)
            vm.stack.pop()
            #expect(vm.stack.top == 0)
        }

        @Test("encoded values read naturally in Lua")
        func luaView() throws {
            let vm = LuaVM()
            try vm.setGlobal("state", to: sample)
            let results = try vm.run("""
            return math.type(state.count), math.type(state.ratio), math.type(state.whole), state.whole,
                   #state.title, utf8.len(state.title), state.title:byte(-2),
                   #state.filters, state.filters[2].name, state.filters[2].threshold,
                   state.tags.swift, state.note, #state.grid[3], state.byID[10], state.flags[2]
            """)
            #expect(results == ["integer", "float", "float", 2.0, 14, 10, 0,
                                2, "warnings", .nil, 2, .nil, 0, "ten", false])
        }

        @Test("tables written in Lua decode into Swift types, integral floats into Int")
        func fromLua() throws {
            let vm = LuaVM()
            try vm.run("""
            state = {
              title = 'from lua', count = 10 / 2, ratio = 1, whole = 3, flags = {}, filters = {{name = 'f', enabled = true}},
              tags = {}, grid = {{1}}, empty = {}, none = {}, byID = {[7] = 'seven'}, small = 127, big = 0, single = 2
            }
            """)
            vm.stack.getGlobal("state")
            let state = try vm.decode(AppState.self, at: -1, root: "state")
            #expect(state.count == 5)
            #expect(state.ratio == 1.0)
            #expect(state.filters == [Filter(name: "f", enabled: true, threshold: nil)])
            #expect(state.byID == [7: "seven"])
            #expect(state.tags.isEmpty && state.flags.isEmpty)
        }

        @Test("strings keep embedded zeros and multi-byte UTF-8 both ways")
        func strings() throws {
            let vm = LuaVM()
            let text = "nul\0in the middle, \u{65E5}\u{672C}, \u{1F600}"
            try vm.setGlobal("text", to: text)
            #expect(try vm.run("return #text, (text:find('\\0', 1, true))") == [.integer(text.utf8.count), 4])
            #expect(try vm.run("return text .. '\\0!'", as: String.self) == text + "\0!")
        }

        @Test("optionals: nil fields are absent keys, present ones decode")
        func optionals() throws {
            let vm = LuaVM()
            try vm.setGlobal("f", to: Filter(name: "x", enabled: true, threshold: nil))
            #expect(try vm.run("local n = 0 for _ in pairs(f) do n = n + 1 end return n, f.threshold") == [2, .nil])
            #expect(try vm.run("return nil", as: Int?.self) == nil)
            #expect(try vm.run("return 4", as: Int?.self) == 4)
            #expect(try vm.run("return {1, nil, 3}", as: [Int?].self) == [1, nil, 3])
        }

        @Test("an empty table is an empty array or an empty dictionary, as the Swift type asks")
        func emptyTable() throws {
            let vm = LuaVM()
            #expect(try vm.run("return {}", as: [Int].self) == [])
            #expect(try vm.run("return {}", as: [String: Int].self) == [:])
            try vm.setGlobal("a", to: [Int]())
            try vm.setGlobal("d", to: [String: Int]())
            #expect(try vm.run("return type(a), next(a), type(d), next(d)") == ["table", .nil, "table", .nil])
        }

        @Test("non-finite doubles encode, and decode back as doubles")
        func nonFinite() throws {
            let vm = LuaVM()
            try vm.setGlobal("values", to: [Double.infinity, -Double.infinity])
            #expect(try vm.run("return values[1] == math.huge, values[2] == -math.huge") == [true, true])
            #expect(try vm.run("return 0/0", as: Double.self).isNaN)
        }

        @Test("LuaValue round-trips through the stack and prints in Lua syntax")
        func luaValue() throws {
            let vm = LuaVM()
            let value: LuaValue = ["list": [1, 2.5, "x"], "flag": true, "a b": ["nested": [:]]]
            vm.stack.push(value)
            #expect(vm.stack.value(at: -1) == value)
            #expect(value.description == #"{["a b"] = {nested = {}}, flag = true, list = {1, 2.5, "x"}}"#)
            #expect(LuaValue.string("a\"b\n\0").description == #""a\"b\n\0""#)
        }

        @Test("reading a cyclic table as a LuaValue stops at the cycle")
        func luaValueCycle() throws {
            let vm = LuaVM()
            let value = try #require(vm.run("local t = {name = 'loop'} t.self = t return t").first)
            guard case let .table(fields) = value, case let .opaque(text)? = fields["self"] else {
                Issue.record("expected a table with an opaque self, got \(value)")
                return
            }
            #expect(fields["name"] == "loop")
            #expect(text.hasPrefix("table: 0x"))
        }

        @Test("a Swift value nested deeper than the limit is an encoding error, not a crash")
        func encodingTooDeep() throws {
            final class Node: Encodable {
                var next: Node?
            }
            let root = Node()
            var node = root
            for _ in 0 ..< 300 {
                let next = Node()
                node.next = next
                node = next
            }
            let vm = LuaVM()
            let error = try #require(throws: EncodingError.self) { try LuaEncoder().push(root, to: vm.stack, root: "state") }
            #expect(error.fieldMessage.hasSuffix("invalid value: nested deeper than 200 levels"))
            #expect(error.fieldMessage.hasPrefix("field 'state.next.next."))
            #expect(vm.stack.top == 0)
        }
    }
}
