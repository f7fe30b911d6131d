import Flux
import FluxEffects
import FluxShell
import Foundation
import Testing

/// A shell typed into by a spec, its timers on the virtual clock as in `fluxsh test`.
final class EffectsTranscript {
    private(set) var output = ""
    private(set) var errors = ""
    private(set) var shell: Shell!

    init(virtualClock: Bool = true, plugins: [String] = []) {
        var configuration = ShellConfiguration()
        configuration.features = true
        configuration.color = false
        configuration.width = 80
        configuration.virtualClock = virtualClock
        configuration.plugins = plugins
        shell = Shell(configuration: configuration,
                      write: { [weak self] in self?.output += $0 },
                      writeError: { [weak self] in self?.errors += $0 })
    }

    /// Types `input`; returns whether it succeeded, what it printed and its errors, and forgets both.
    @discardableResult
    func type(_ input: String) -> (ok: Bool, output: String, errors: String) {
        let ok = shell.execute(input)
        defer { output = ""; errors = "" }
        return (ok, output, errors)
    }

    /// The printed value of a Lua expression (it must succeed with no error).
    func value(_ expression: String) -> String {
        let result = type(expression)
        return result.ok && result.errors.isEmpty ? result.output.trimmingCharacters(in: .newlines) : "FAILED: " + result.errors
    }
}

@Suite("Effects from Lua", .serialized)
struct EffectsLuaSpec {
    @Test("flux.after and flux.every on the virtual clock: advance fires them in order and counts them")
    func timers() {
        let t = EffectsTranscript()
        t.type("fired = {}")
        t.type("flux.after(250, function() fired[#fired + 1] = 'after' end)")
        t.type("tick = flux.every(100, function() fired[#fired + 1] = 'every' end)")
        #expect(t.value("flux.advance(99)") == "0")
        #expect(t.value("flux.advance(201)") == "4")
        #expect(t.value("table.concat(fired, ' ')") == "every every after every")
        t.type("tick:cancel(); tick:cancel()")
        #expect(t.value("tick:active()") == "false")
        #expect(t.value("#flux.effects()") == "0")
        #expect(t.type(":effects").output == "no effects\n")
    }

    @Test("a handle in a <close> variable is cancelled when its scope ends")
    func closeScope() {
        let t = EffectsTranscript()
        t.type("do local t <close> = flux.every(10, function() end); n = #flux.effects() end")
        #expect(t.value("n") == "1")
        #expect(t.value("#flux.effects()") == "0")
    }

    @Test("bad input: a string argv, a negative delay, NaN, an unknown option, a non-function; nothing starts",
          arguments: ["flux.spawn('ls -l')", "flux.after(-5, print)", "flux.every(0/0, print)", "flux.after(1e300, print)",
                      "flux.spawn({'ls'}, {on_lines = print})", "flux.after(10, 'print')", "flux.spawn({})",
                      "flux.spawn({'no-such-program-anywhere'})", "flux.watch_path('/no/such/path', print)", "flux.advance(-1)"])
    func badInput(line: String) {
        let t = EffectsTranscript()
        let result = t.type(line)
        #expect(!result.ok)
        #expect(!result.errors.isEmpty)
        #expect(t.value("#flux.effects()") == "0")
    }

    @Test("a missing program is an error naming it")
    func missingProgram() {
        let t = EffectsTranscript()
        #expect(t.type("flux.spawn({'no-such-program-anywhere'})").errors.contains("cannot run no-such-program-anywhere: no such program on PATH"))
    }

    @Test("flux.spawn streams lines with their stream, then on_exit(code, signal); flux.settle waits for it")
    func spawn() {
        let t = EffectsTranscript()
        t.type("got = {}")
        t.type("""
        flux.spawn({'/bin/sh', '-c', 'echo out; echo err >&2; exit 2'}, {
          on_line = function(line, stream) got[#got + 1] = stream .. ':' .. line end,
          on_exit = function(code, signal) got[#got + 1] = 'exit:' .. tostring(code) .. ':' .. tostring(signal) end,
        })
        """)
        t.type("flux.settle(5000)")
        #expect(t.value("table.concat(got, ' ')").hasSuffix("exit:2:nil"))
        #expect(t.value("table.concat(got, ' ')").contains("stdout:out"))
        #expect(t.value("table.concat(got, ' ')").contains("stderr:err"))
        t.type("p = flux.spawn({'sleep', '5'}, {on_exit = function(code, signal) sig = signal end})")
        #expect(Int(t.value("p:pid()")) ?? 0 > 0)
        t.type("p:kill('KILL')")
        t.type("flux.settle(5000)")
        #expect(t.value("sig") == "KILL")
    }

    @Test("a callback's error is shown once with its traceback, counted in :errors, and the shell goes on")
    func callbackError() {
        let t = EffectsTranscript()
        t.type("flux.every(10, function() error('boom') end)")
        let result = t.type("flux.advance(50)")
        #expect(result.errors.components(separatedBy: "boom").count - 1 == 1)
        #expect(result.errors.contains("stack traceback"))
        #expect(t.type(":errors").output.contains("5×"))
        #expect(t.shell.host.failedEffectCallbacks == 5)
    }

    @Test("a callback stuck in a loop is stopped by the instruction budget")
    func budget() {
        var configuration = ShellConfiguration()
        configuration.virtualClock = true
        configuration.instructionBudget = 100_000
        var errors = ""
        let shell = Shell(configuration: configuration, write: { _ in }, writeError: { errors += $0 })
        shell.execute("flux.after(1, function() while true do end end)")
        shell.execute("flux.advance(1)")
        #expect(errors.contains("instruction budget"))
    }

    @Test("flux.on runs after an action committed, never for a refused one; once per action of a committed group, none for a rolled-back one")
    func listeners() {
        let t = EffectsTranscript()
        t.type("heard = {}")
        t.type("flux.on('ticTacToe.*', function(action) heard[#heard + 1] = action.type .. ':' .. tostring(action.index) end)")
        t.type("flux.dispatch('ticTacToe.placeToken', {index = 4})")
        #expect(t.value("table.concat(heard, ' ')") == "ticTacToe.placeToken:4")
        t.type("flux.dispatch('ticTacToe.placeToken', {index = 4})") // the square is taken: refused
        #expect(t.value("#heard") == "1")
        t.type("flux.group('two', function() flux.dispatch('ticTacToe.placeToken', {index = 0}); flux.dispatch('ticTacToe.placeToken', {index = 1}) end)")
        #expect(t.value("table.concat(heard, ' ')") == "ticTacToe.placeToken:4 ticTacToe.placeToken:0 ticTacToe.placeToken:1")
        t.type("pcall(flux.group, 'undone', function() flux.dispatch('ticTacToe.placeToken', {index = 2}); error('no') end)")
        #expect(t.value("#heard") == "3")
    }

    @Test("a listener may dispatch: its action is an effect's, recorded as such, and a replay runs no listener")
    func listenerDispatchAndReplay() throws {
        let log = NSTemporaryDirectory() + "effects-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let t = EffectsTranscript()
        t.type("runs = 0")
        t.type("flux.on('ticTacToe.placeToken', function(a) runs = runs + 1; if a.index == 4 then flux.dispatch('ticTacToe.placeToken', {index = 0}) end end)")
        t.type(":record \(log)")
        t.type("flux.dispatch('ticTacToe.placeToken', {index = 4})")
        t.type(":record")
        #expect(t.value("runs") == "2")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(!lines[0].contains("\"effect\":true"))
        #expect(lines[1].contains("\"effect\":true"))

        let fresh = EffectsTranscript()
        fresh.type("runs = 0")
        fresh.type("flux.on('*', function() runs = runs + 1; flux.after(1, function() end) end)")
        #expect(fresh.type(":replay \(log)").ok)
        #expect(fresh.value("runs") == "0")
        #expect(fresh.value("#flux.effects()") == "1") // the listener alone: no timer started
        #expect(fresh.value("flux.state('ticTacToe').board[1]") == "O")
    }

    @Test("effects cannot start in a store's handler: handlers stay pure")
    func refusedInHandler() {
        let t = EffectsTranscript()
        t.type("flux.store{name = 'impure', state = {}, on = {['impure.go'] = function(state) flux.spawn({'true'}); return state end}}")
        let result = t.type("flux.dispatch('impure.go')")
        #expect(!result.ok)
        #expect(result.errors.contains("cannot run in a store's handler"))
        #expect(t.value("#flux.effects()") == "0")
    }

    @Test("a callback's dispatch is journaled as an effect's, and the callback may start more effects")
    func callbackDispatches() throws {
        let log = NSTemporaryDirectory() + "effects-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let t = EffectsTranscript()
        t.type("flux.after(10, function() flux.dispatch('ticTacToe.placeToken', {index = 4}); flux.after(5, function() done = true end) end)")
        t.type(":record \(log)")
        t.type("flux.advance(20)")
        t.type(":record")
        #expect(t.value("done") == "true")
        #expect(t.value("flux.state('ticTacToe').board[5]") == "X")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("\"effect\":true") == true)
    }

    @Test(":unload ends the plugin's timers, processes, watches and listeners; a successful :reload ends the last run's; a failed one keeps them")
    func pluginOwnership() throws {
        let folder = NSTemporaryDirectory() + "effects-plugin-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = folder + "/ticker.lua"
        try """
        flux.every(100, function() end)
        flux.spawn({'sleep', '30'})
        flux.watch_path('\(folder)', function() end)
        flux.on('*', function() end)
        """.write(toFile: plugin, atomically: true, encoding: .utf8)
        let t = EffectsTranscript()
        #expect(t.type(":load \(plugin)").ok)
        #expect(t.value("#flux.effects()") == "4")
        #expect(t.type(":effects").output.contains("plugin ticker"))
        let pid = t.value("flux.effects()[2].pid")
        #expect(t.type(":reload ticker").ok)
        #expect(t.value("#flux.effects()") == "4")
        #expect(t.value("flux.effects()[1].id") == "5")
        try "flux.every(100, function() end)\nerror('broken')".write(toFile: plugin, atomically: true, encoding: .utf8)
        #expect(!t.type(":reload ticker").ok)
        #expect(t.value("#flux.effects()") == "4")
        #expect(t.type(":unload ticker").ok)
        #expect(t.value("#flux.effects()") == "0")
        t.shell.host.effects.endAll()
        usleep(50_000)
        #expect(kill(Int32(pid) ?? 0, 0) != 0)
    }

    @Test("fluxsh test's virtual clock: an hour of a one-minute timer takes milliseconds")
    func virtualHour() {
        let t = EffectsTranscript()
        t.type("count = 0; flux.every(60000, function() count = count + 1 end)")
        #expect(t.value("flux.advance(3600000)") == "60")
        #expect(t.value("count") == "60")
    }
}
