import FluxShell
import Testing
@testable import FluxLua

/// How often a command enters Lua: a `:` command is Swift, save for the Lua text it is given.
@Suite("The path of one :dispatch")
struct DispatchPathSpec {
    @Test(":dispatch to a Swift store, with a Swift view watched, enters Lua once: for the payload")
    func dispatchEntersLuaOnce() {
        let shell = ShellTranscript()
        #expect(shell.print(":watch ticTacToe").hasPrefix("watching ticTacToe"))
        let vm = shell.shell.host.vm
        var before = vm.protectedCalls
        let placed = shell.print(":dispatch ticTacToe.placeToken {index = 4}")
        #expect(placed.hasPrefix("ticTacToe.placeToken {index = 4}\n") && placed.contains("ticTacToe:\n"))
        #expect(vm.protectedCalls - before == 1)
        before = vm.protectedCalls
        #expect(shell.print(":dispatch ticTacToe.reset").contains("ticTacToe:\n"))
        #expect(vm.protectedCalls == before, "no payload, no Lua")
    }

    @Test(":state of a Swift store enters Lua once: to print the table")
    func stateEntersLuaOnce() {
        let shell = ShellTranscript()
        let vm = shell.shell.host.vm
        let before = vm.protectedCalls
        #expect(shell.print(":state ticTacToe").contains("gameInstruction = \"X's turn\""))
        #expect(vm.protectedCalls - before == 1)
    }

    @Test(":dispatch reports a Lua store's failure on one line, as before: no handler traceback")
    func luaStoreFailure() {
        let shell = ShellTranscript()
        shell.type("flux.store{name = 'probe', state = {}, on = {['probe.fail'] = function() error('no') end}}")
        let result = shell.type(":dispatch probe.fail {}")
        #expect(!result.ok)
        #expect(result.errors.hasPrefix("store 'probe' failed on 'probe.fail'"))
        #expect(result.errors.split(separator: "\n").count == 1)
    }
}
