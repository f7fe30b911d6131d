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
    }
}
