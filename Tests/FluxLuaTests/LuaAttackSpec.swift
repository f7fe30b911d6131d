import Foundation
import Flux
import Testing
@testable import FluxLua

extension FluxLuaTests {
    /// What a hostile script does with what the host hands it: every attempt is an error, never a crash,
    /// a hang or a forged state.
    @Suite("Attack")
    struct Attack {
        @Test("coroutines closed inside __close, a hundred thousand deep, are an error, not a C stack overflow")
        func nestedCoroutineClose() throws {
            let vm = LuaVM()
            #expect(try vm.run("""
            local coro = false
            for i = 1, 100000 do
              local previous = coro
              coro = coroutine.create(function()
                local closer <close> = setmetatable({}, {__close = function()
                  if previous then assert(coroutine.close(previous)) end
                end})
                coroutine.yield()
              end)
              coroutine.resume(coro)
            end
            local ok, message = coroutine.close(coro)
            return ok, message:find("C stack overflow", 1, true) ~= nil
            """) == [false, true])
            #expect(try vm.run("return coroutine.close(coroutine.create(print))") == [true])
        }

        @Test("precompiled chunks are refused by load, loadfile, dofile and require: corrupted bytecode never runs")
        func precompiledChunksRefused() throws {
            let vm = LuaVM()
            // Lua does not check bytecode: run, these corrupted chunks read and write memory out of bounds.
            #expect(try vm.run("""
            local function f(a, b) local t = {a, b, "x", 1.5} for i = 1, #t do t[i] = tostring(t[i]) .. a end return t[1], #t, b end
            local dumped = string.dump(f)
            math.randomseed(1)
            local loaded = 0
            for i = 1, 20000 do
              local bytes = {dumped:byte(1, -1)}
              for j = 1, math.random(1, 3) do local p = math.random(40, #bytes) bytes[p] = math.random(0, 255) end
              local chunk = load(string.char(table.unpack(bytes)), "fuzz")
              if chunk then loaded = loaded + 1 pcall(chunk, "a", "b") end
            end
            local chunk, message = load(dumped)
            return loaded, chunk, message
            """) == [0, .nil, "attempt to load a binary chunk (mode is 't')"])
            #expect(try vm.run("return select(2, pcall(load, string.dump(print ~= nil and function() end), 'c', 'b'))")
                == ["bad argument #3 to 'load' (precompiled chunks cannot be loaded)"])
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flux-bytecode-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try vm.run("""
            folder = ...
            local file = assert(io.open(folder .. "/compiled.lua", "wb"))
            file:write(string.dump(function() return "ran" end)) file:close()
            file = assert(io.open(folder .. "/plain.lua", "w"))
            file:write("return 'plain', ...") file:close()
            package.path = folder .. "/?.lua"
            """.replacingOccurrences(of: "folder = ...", with: "folder = \"\(folder.path)\""))
            #expect(try vm.run("return select(2, loadfile(folder .. '/compiled.lua'))")
                == [.string("attempt to load a binary chunk (mode is 't')")])
            #expect(try vm.run("return select(2, pcall(dofile, folder .. '/compiled.lua'))")
                == [.string("attempt to load a binary chunk (mode is 't')")])
            #expect(try vm.run("return select(2, pcall(require, 'compiled')):find('error loading module', 1, true) ~= nil") == [true])
            // Source text loads as before, an environment given or not.
            #expect(try vm.run("""
            return load("return x", "c", "t", {x = 5})(), loadfile(folder .. "/plain.lua")("a"), dofile(folder .. "/plain.lua"),
              require("plain"), select("#", load("return 1")()), (pcall(load("return x", "c", "t", nil)))
            """) == [5, "plain", "plain", "plain", 1, false])
        }

        @Test("package.loadlib hands out no symbol but a Lua module's entry point: any other, called, crashes the shell")
        func loadlibEntryPointsOnly() throws {
            let vm = LuaVM()
            // Called, `abort` would end the process: that it is not handed out is what a script can see.
            #expect(try vm.run("local f, message, where = package.loadlib('libc.so.6', 'abort') return type(f), message, where")
                == ["nil", "'abort' is not a Lua module's entry point (luaopen_*)", "init"])
            #expect(try vm.run("local f, message, where = package.loadlib('/no/such/library.so', 'luaopen_x') return type(f), where")
                == ["nil", "open"])
            #expect(try vm.run("return package.loadlib('libc.so.6', '*')") == [true])
        }

        @Test("library loops in C that run no Lua code end: string.rep of nothing at once, huge table.move, insert, remove, concat and sort at the budget or an interrupt",
              .timeLimit(.minutes(1)))
        func libraryLoopsStop() throws {
            let vm = Hook.vmWithInterruptTimer()
            #expect(try vm.run("return string.rep('', math.maxinteger), ('' ):rep(math.maxinteger, ''), string.rep('ab', 3, ',')")
                == ["", "", "ab,ab,ab"])
            let interrupted = try #require(throws: LuaError.self) {
                try vm.run("host.armInterrupt() table.move({}, 1, math.maxinteger - 1, 2)")
            }
            #expect(interrupted.kind == .interrupted)
            vm.instructionBudget = 1_000_000
            for loop in [
                "table.move({}, 1, math.maxinteger - 1, 2)",
                "table.insert(setmetatable({}, {__len = function() return 2^62 end}), 1, 'x')",
                "table.remove(setmetatable({}, {__len = function() return 2^62 end}), 1)",
                "table.concat(setmetatable({}, {__index = rawlen}), '', 1, 2^40)", // values from a C function
                "table.sort(setmetatable({}, {__len = function() return 1 << 30 end, __index = rawlen}))",
                "table.sort(setmetatable({}, {__len = function() return 1 << 30 end, __index = rawlen}), rawequal)",
            ] {
                let stopped = try #require(throws: LuaError.self) { try vm.run(loop) }
                #expect(stopped.kind == .budgetExceeded, "\(loop)")
            }
            #expect(try vm.run("""
            local t = {1, 2, 3, 4, 5}
            local big = {} for i = 1, 5000 do big[i] = i end
            table.move(big, 1, 5000, 3)
            return table.concat(table.move(t, 2, 4, 1), ","), table.concat(table.move({1, 2, 3, 4, 5}, 1, 3, 3), ","), big[3], big[5002]
            """) == ["2,3,4,4,5", "1,2,1,2,3", 1, 5000])
            #expect(try vm.run("""
            local t = {1, 2, 3}
            table.insert(t, 4) table.insert(t, 1, 0)
            local last, first = table.remove(t), table.remove(t, 1)
            return table.concat(t, ","), last, first, table.concat({1, 2, 3}, "-", 2), select(2, pcall(table.insert, t, 9, 1))
            """) == ["1,2,3", 4, 0, "2-3", "bad argument #2 to 'table.insert' (position out of bounds)"])
        }

        @Test("an interrupt stops a __close that loops while coroutine.close or a failed wrap closes it",
              .timeLimit(.minutes(1)))
        func interruptInClose() throws {
            let vm = Hook.vmWithInterruptTimer()
            for closing in ["coroutine.close(co)", "coroutine.wrap(function() local x <close> = loop error('x') end)()"] {
                let error = try #require(throws: LuaError.self) {
                    try vm.run("""
                    loop = setmetatable({}, {__close = function() while true do end end})
                    co = coroutine.create(function() local x <close> = loop coroutine.yield() end)
                    coroutine.resume(co)
                    host.armInterrupt()
                    \(closing)
                    """)
                }
                #expect(error.kind == .interrupted)
            }
            #expect(try vm.run("return 'after'") == ["after"])
            #expect(try vm.run("""
            local co = coroutine.create(function() coroutine.yield() end)
            return pcall(coroutine.close, coroutine.running()), coroutine.resume(co), coroutine.close(co), coroutine.status(co)
            """) == [false, true, true, "dead"])
        }

        @Test("an error object whose __tostring loops is stopped by an interrupt and by the budget, raised by a script or a store's handler, and the store is as it was",
              .timeLimit(.minutes(1)))
        func loopingErrorRendering() throws {
            let host = FluxHost(dispatcher: Dispatcher())
            let handle = host.vm.interruptHandle
            host.vm.register("armInterrupt", in: "host") { _ in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { handle.interrupt() }
                return 0
            }
            try host.run("""
            looping = setmetatable({}, {__tostring = function() while true do end end})
            flux.store{name = "s", state = {n = 0}, on = {["s.fail"] = function(s) s.n = 1 error(looping) end}}
            """)
            for raising in ["error(looping)", "flux.dispatch('s.fail')"] {
                let interrupted = try #require(throws: LuaError.self) { try host.run("host.armInterrupt() \(raising)") }
                #expect(interrupted.kind == .interrupted, "\(raising)")
            }
            host.vm.instructionBudget = 1_000_000
            for raising in ["error(looping)", "flux.dispatch('s.fail')"] {
                let stopped = try #require(throws: LuaError.self) { try host.run(raising) }
                #expect(stopped.kind == .budgetExceeded, "\(raising)")
            }
            #expect(try host.run("return flux.state('s').n") == [0])
        }

        @Test("a new state holding a table in many places, or itself twice, is compared with the old one in bounded time: past a budget it is a change",
              .timeLimit(.minutes(1)))
        func sharedTablesCompareInBoundedTime() throws {
            // Compared place by place, a table held twice on each of 40 levels is 2^40 comparisons, in C, where
            // neither the budget nor an interrupt reaches: the dispatch never returned.
            let host = FluxHost(dispatcher: Dispatcher())
            try host.run("""
            function dag(n) local t = {} for i = 1, n do t = {t, t} end return t end
            heard = 0
            flux.store{name = "web", state = {n = 0}, on = {
              ["web.dag"] = function(s) s.d = dag(40) end,
              ["web.small"] = function(s) s.d = dag(3) end,
              ["web.twice"] = function(s) s.a = s s.b = s s.t = {} end,
            }}
            sub = flux.subscribe("web", function() heard = heard + 1 end)
            """)
            try host.run("flux.dispatch('web.dag') flux.dispatch('web.dag')")
            #expect(try host.run("local d = flux.state('web').d return heard, d[1] == d[2], type(d[2][1][2][1])") == [3, true, "table"])
            try host.run("flux.dispatch('web.small') flux.dispatch('web.small')")
            #expect(try host.run("return heard") == [4], "an equal state a few levels deep is still no change")
            try host.run("flux.dispatch('web.twice') flux.dispatch('web.twice')")
            #expect(try host.run("local s = flux.state('web') return heard, s.a == s, s.b.b == s") == [6, true, true])
        }

        @Test("a payload, a saved state and a table copied out to Swift hold at most two million values, a table held in several places counted in each",
              .timeLimit(.minutes(1)))
        func sharedTablesWalkedInBoundedTime() throws {
            // As a tree a table held twice on each of 40 levels is 2^40 values: checking the payload, saving the
            // state a handler made of it and copying it out as a LuaValue walked it in Swift, beyond the budget's and
            // interrupts' reach. Each stops at two million values, counted as a tree: 1,500 places of one table of
            // 1,500 reach it as surely, and sooner.
            let host = FluxHost(dispatcher: Dispatcher())
            try host.run("""
            function dag(n) local t = {} for i = 1, n do t = {t, t} end return t end
            function wide() local leaf, t = {}, {} for i = 1, 1500 do leaf[i] = i end for i = 1, 1500 do t[i] = leaf end return t end
            flux.store{name = "web", state = {n = 0}, on = {["web.take"] = function(s, p) s.n = s.n + 1 end}}
            """)
            #expect(try host.run("return select(2, pcall(flux.dispatch, 'web.take', {d = wide()}))")
                == ["web.take: invalid table: more than 2000000 values (a table held in several places counts in each)"])
            #expect(try host.run("return flux.state('web').n") == [0])
            try host.run("flux.dispatch('web.take', {d = dag(10)})")
            #expect(try host.run("return flux.state('web').n") == [1], "a table held in many places, small as a tree, is plain data")
            let lua = host.vm.stack
            try host.run("big = {d = wide()}")
            _ = lua.getGlobal("big")
            defer { lua.pop() }
            do {
                _ = try LuaStateText.encode(at: -1, on: lua)
                Issue.record("saved")
            } catch {
                #expect("\(error)" == "state holds more than 2000000 values (a table held in several places is saved in each): it cannot be saved")
            }
            guard case let .table(fields) = lua.value(at: -1), case let .array(rows) = fields["d"],
                  case .array = rows.first, case .opaque = rows.last else {
                Issue.record("the first million values are copied out, the rest left opaque")
                return
            }
        }

        @Test("a table is refused as a key of a state, written, made or returned by a handler or given as an initial state: the script would keep it to change")
        func tableKeysRefused() throws {
            // Freezing copies a state's tables but not its keys, which are found by identity: a table key stayed
            // the script's, which changed the published state (and what a session saves of it) with no action,
            // and pairs of a view handed it to every subscriber, raw.
            let host = FluxHost(dispatcher: Dispatcher())
            try host.run("""
            K = {x = 1}
            flux.store{name = "k", state = {n = 0, sub = {}}, on = {
              ["k.top"] = function(s) s.n = 1 s[K] = true end,
              ["k.nested"] = function(s) s.n = 1 s.sub[K] = true end,
              ["k.draft"] = function(s) s.n = 1 s[s.sub] = true end,
              ["k.made"] = function(s) s.n = 1 s.t = {[K] = true} end,
              ["k.returned"] = function(s) return {n = 1, [K] = true} end,
              ["k.plain"] = function(s) s.n = s.n + 1 s[true] = 1 s[2.5] = 2 s[print] = 3 end,
            }}
            function keys() local n = 0 for k in pairs(flux.state("k")) do n = n + 1 end return n end
            """)
            for action in ["top", "nested", "draft", "made", "returned"] {
                #expect(try host.run("return select(2, pcall(flux.dispatch, 'k.\(action)'))").first?.description
                    .contains("a table cannot be a key of a state: the script would keep it to change") == true, "\(action)")
            }
            #expect(try host.run("return flux.state('k').n, keys(), next(flux.state('k').sub)") == [0, 2, .nil])
            try host.run("flux.dispatch('k.plain')")
            #expect(try host.run("return flux.state('k').n, keys()") == [1, 5], "keys of every other type stay")
            #expect(try host.run("return select(2, pcall(flux.store, {name = 'k2', state = {a = {[{}] = 1}}}))")
                == ["a table cannot be a key of a state: the script would keep it to change"])
        }

        @Test("a traceback names functions in bounded time however much package.loaded holds: the budget, an interrupt and debug.traceback end at once",
              .timeLimit(.minutes(1)))
        func tracebackNameSearchBounded() throws {
            // lauxlib looks for each function's name in every field of every module, in C: with thirty thousand
            // places of a table of thirty thousand fields, the traceback the message handler writes for the
            // budget's or an interrupt's error ran for minutes beyond the reach of both.
            let vm = Hook.vmWithInterruptTimer()
            #expect(try vm.run("""
            local ok, traceback = xpcall(function() error("x") end, debug.traceback)
            return traceback:find("in function 'error'", 1, true) ~= nil
            """) == [true], "a function is named by its module as before")
            try vm.run("""
            local fields = {} for i = 1, 30000 do fields["f" .. i] = i end
            for i = 1, 30000 do package.loaded["m" .. i] = fields end
            """)
            vm.instructionBudget = 1_000_000
            let stopped = try #require(throws: LuaError.self) { try vm.run("while true do end") }
            #expect(stopped.kind == .budgetExceeded)
            vm.instructionBudget = nil
            let interrupted = try #require(throws: LuaError.self) { try vm.run("host.armInterrupt() while true do end") }
            #expect(interrupted.kind == .interrupted)
            #expect(try vm.run("return select(2, xpcall(function() error('x') end, debug.traceback)):find('stack traceback:', 1, true) ~= nil")
                == [true])
        }
    }
}
