import Flux
import Testing
@testable import FluxLua

private struct Filter: Decodable {
    var name: String
    var enabled: Bool
}

private struct State: Decodable {
    var filters: [Filter]
}

private struct Settings: Decodable {
    var filter: String
}

private struct Counter: Decodable {
    var count: Int
}

private final class Node: Decodable {
    let name: String
    let next: Node?
}

extension FluxLuaTests {
    @Suite("Decoding errors")
    struct DecodingErrors {
        /// The `fieldMessage` of decoding the value `source` returns as `T`.
        private func message<T: Decodable>(_ type: T.Type, from source: String, root: String? = "state") throws -> String {
            let vm = LuaVM()
            try vm.stack.load("return " + source, chunkName: "test")
            try vm.stack.pcall(arguments: 0, results: 1)
            let error = try #require(throws: DecodingError.self) { try vm.decode(type, at: -1, root: root) }
            vm.stack.pop()
            #expect(vm.stack.top == 0)
            return error.fieldMessage
        }

        @Test("a value of the wrong type names its path")
        func wrongType() throws {
            let source = "{filters = {{name = 'a', enabled = true}, {name = 'b', enabled = false}, {name = 'c', enabled = 'yes'}}}"
            #expect(try message(State.self, from: source) == "field 'state.filters[3].enabled': expected a boolean, got string")
        }

        @Test("a missing field is 'expected …, got nil', as valueNotFound")
        func missingField() throws {
            #expect(try message(Settings.self, from: "{}", root: nil) == "field 'filter': expected a string, got nil")
            let vm = LuaVM()
            try vm.run("settings = {}")
            vm.stack.getGlobal("settings")
            #expect {
                try vm.decode(Settings.self, at: -1)
            } throws: { error in
                guard case DecodingError.valueNotFound = error else { return false }
                return true
            }
        }

        @Test("a missing nested table is 'expected a table, got nil'")
        func missingTable() throws {
            struct Outer: Decodable { var inner: Counter }
            #expect(try message(Outer.self, from: "{}") == "field 'state.inner': expected a table, got nil")
        }

        @Test("a number is not a string")
        func numberIsNotString() throws {
            #expect(try message(Settings.self, from: "{filter = 42}") == "field 'state.filter': expected a string, got number")
        }

        @Test("floats that are not integers do not decode into Int")
        func floatsIntoInt() throws {
            #expect(try message(Counter.self, from: "{count = 1.5}") == "field 'state.count': expected an integer, got 1.5")
            #expect(try message(Counter.self, from: "{count = 0/0}") == "field 'state.count': expected an integer, got nan")
            #expect(try message(Counter.self, from: "{count = 1e300}") == "field 'state.count': expected an integer, got 1e+300")
            #expect(try message(Counter.self, from: "{count = math.huge}") == "field 'state.count': expected an integer, got inf")
        }

        @Test("an integer out of a narrower type's range names the range")
        func narrowIntegers() throws {
            struct Small: Decodable { var value: Int8 }
            #expect(try message(Small.self, from: "{value = 300}") == "field 'state.value': expected an integer between -128 and 127, got 300")
        }

        @Test("a table with other keys does not decode as an array")
        func mixedKeys() throws {
            #expect(try message([Int].self, from: "{1, 2, x = 3}", root: "list") == "field 'list': expected an array, got a table with the key 'x'")
            #expect(try message([Int].self, from: "{[0] = 1}", root: "list") == "field 'list': expected an array, got a table with the key 0")
            #expect(try message([Int?].self, from: "{[1000000] = 1}", root: "list")
                == "field 'list': expected an array, got a sparse table (1 values up to index 1000000)")
        }

        @Test("a hole in an array is a missing element unless elements are optional")
        func holes() throws {
            #expect(try message([Int].self, from: "{1, nil, 3}", root: "list") == "field 'list[2]': expected an integer, got nil")
        }

        @Test("a dictionary needs string keys")
        func dictionaryKeys() throws {
            #expect(try message([String: Int].self, from: "{[true] = 1}", root: "tags") == "field 'tags': expected a table with string keys, got a boolean key")
        }

        @Test("a string that is not UTF-8 does not decode into String")
        func invalidUTF8() throws {
            #expect(try message(Settings.self, from: "{filter = '\\xff\\xfe'}") == "field 'state.filter': invalid string: not UTF-8")
        }

        @Test("a table that contains itself is an error at the path where it recurs")
        func cycle() throws {
            let vm = LuaVM()
            try vm.run("loop = {name = 'a', next = {name = 'b'}} loop.next.next = loop")
            vm.stack.getGlobal("loop")
            let error = try #require(throws: DecodingError.self) { try vm.decode(Node.self, at: -1, root: "state") }
            #expect(error.fieldMessage == "field 'state.next.next': invalid table: it contains itself (a cycle)")
        }

        @Test("a shared table that is not a cycle decodes fine")
        func sharedTable() throws {
            struct Pair: Decodable { var left: Counter; var right: Counter }
            let vm = LuaVM()
            let pair = try vm.run("local shared = {count = 1} return {left = shared, right = shared}", as: Pair.self)
            #expect(pair.left.count == 1 && pair.right.count == 1)
        }

        @Test("a table nested deeper than the limit is an error naming the path")
        func tooDeep() throws {
            let text = try message(Node.self, from: "(function() local t = {name = 'n'} local root = t for i = 1, 300 do t.next = {name = 'n'} t = t.next end return root end)()")
            #expect(text.hasPrefix("field 'state.next.next."))
            #expect(text.hasSuffix("': invalid table: nested deeper than 200 levels"))
            #expect(text.components(separatedBy: ".next").count - 1 == 200)
        }

        @Test("with rejectsUnknownKeys, a key no field reads is an error naming it and the fields; without, it is ignored")
        func unknownKeys() throws {
            struct Shape: Decodable { var name: String; var size: Int?; var filters: [Filter]? }
            enum Mark: Decodable { case cross(size: Int), nought }
            let vm = LuaVM()
            func decode<T: Decodable>(_ type: T.Type, _ source: String, strict: Bool = true) throws -> T {
                try vm.stack.load("return " + source, chunkName: "test")
                try vm.stack.pcall(arguments: 0, results: 1)
                defer { vm.stack.pop() }
                var decoder = LuaDecoder()
                decoder.rejectsUnknownKeys = strict
                decoder.allowedExtraKeys = ["type"]
                return try decoder.decode(type, from: vm.stack, at: -1, root: "shape")
            }
            func message(_ source: String) -> String? {
                #expect(throws: DecodingError.self) { try decode(Shape.self, source) }?.fieldMessage
            }
            #expect(try decode(Shape.self, "{name = 'a', sise = 3}", strict: false).size == nil)
            #expect(message("{name = 'a', sise = 3}") == "field 'shape.sise': unknown field, did you mean 'size'? (fields: filters, name, size)")
            #expect(message("{name = 'a', zeta = 1, beta = 2}") == "field 'shape.beta': unknown field (fields: filters, name, size)")
            #expect(message("{name = 'a', 'b'}") == "field 'shape[1]': unknown field (fields: filters, name, size)")
            #expect(message("{name = 'a', filters = {{name = 'f', enabled = true, on = 1}}}")
                == "field 'shape.filters[1].on': unknown field (fields: enabled, name)")
            // Allowed extras, absent optionals, dictionaries and types that list their keys pass.
            #expect(try decode(Shape.self, "{type = 'x', name = 'a'}").name == "a")
            #expect(try decode([String: Int].self, "{any = 1, key = 2}").count == 2)
            #expect(try decode([String: Mark].self, "{m = {cross = {size = 2}}}").count == 1)
            #expect(vm.stack.top == 0)
        }

        @Test("a dictionary whose values open nested containers decodes: the table walk keeps its place")
        func nestedContainersInDictionary() throws {
            enum Mark: Decodable, Equatable { case cross(size: Int), nought(size: Int) }
            let vm = LuaVM()
            let marks = try vm.run("return {a = {cross = {size = 1}}, b = {nought = {size = 2}}, c = {cross = {size = 3}}}",
                                   as: [String: Mark].self)
            #expect(marks == ["a": .cross(size: 1), "b": .nought(size: 2), "c": .cross(size: 3)])
            #expect(vm.stack.top == 0)
        }

        @Test("a wrong top-level value is reported without a path when no root is given")
        func topLevel() throws {
            #expect(try message([Int].self, from: "'text'", root: nil) == "expected an array, got string")
        }
    }
}
