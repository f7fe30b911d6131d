import Flux
import Foundation
import Testing
@testable import FluxLua

/// C modules from the system (Debian's lua-cjson and lua-lpeg) load with `require`, as in `lua`.
@Suite("C modules from the system")
struct SystemModulesSpec {
    /// Whether Lua's C path finds `name` on this machine.
    static func installed(_ name: String) -> Bool {
        let vm = LuaVM()
        guard let check = try? vm.load("return package.searchpath(..., package.cpath) ~= nil", chunkName: "=check") else { return false }
        return (try? vm.call(check, name)) == [.boolean(true)]
    }

    @Test("require \"cjson\" encodes and decodes JSON", .enabled(if: installed("cjson"), "lua-cjson is not installed: apt-get install lua-cjson"))
    func cjson() throws {
        let host = FluxHost(dispatcher: Dispatcher())
        let results = try host.run(#"""
            local cjson = require "cjson"
            local decoded = cjson.decode('{"n": 1, "list": [1, 2, 3]}')
            return cjson.encode({n = 1}), decoded.n, #decoded.list
            """#)
        #expect(results == [.string(#"{"n":1}"#), .number(1), .integer(3)])
    }

    @Test("require \"lpeg\" matches a pattern", .enabled(if: installed("lpeg"), "lua-lpeg is not installed: apt-get install lua-lpeg"))
    func lpeg() throws {
        let host = FluxHost(dispatcher: Dispatcher())
        let results = try host.run(#"""
            local lpeg = require "lpeg"
            local digits = lpeg.C(lpeg.R("09") ^ 1)
            return digits:match("2026 was"), lpeg.match(lpeg.P("x"), "y")
            """#)
        #expect(results == [.string("2026"), .nil])
    }
}
