import Foundation
import Testing
@testable import FluxShell
@testable import FluxLua

/// `:reload --watch NAME`: a plugin reloaded when one of its files is saved, as a person editing it sees.
@Suite("Plugins reloaded when their files change")
final class PluginWatchSpec {
    let folder: PluginFolder
    let shell = ShellTranscript(features: false)

    init() throws { folder = try PluginFolder() }

    static func greeter(_ word: String) -> String {
        #"flux.command{name = "greet", run = function() return "\#(word)" end}"#
    }

    /// Runs the event loop until the shell has printed or reported something (at most 5 s); what it did.
    @discardableResult
    func settle(timeout: Double = 5000) -> (output: String, errors: String) {
        _ = shell.shell.host.effects.runUntilIdle(timeout: timeout) { !self.shell.output.isEmpty || !self.shell.errors.isEmpty }
        let said = shell.type("")
        return (said.output, said.errors)
    }

    @Test("a saved file reloads the plugin, with one line; a half-written one fails and the last version stays; the next save loads")
    func reloadsOnSave() throws {
        try folder.write("greeter/init.lua", Self.greeter("hello"))
        #expect(shell.print(":load \(folder["greeter"])") == "loaded greeter\n")
        #expect(shell.print(":reload --watch greeter")
                == "watching greeter: it reloads when a .lua file in \(folder["greeter"]) changes (:reload --unwatch greeter stops)\n")
        #expect(shell.shell.host.watchedPlugins == ["greeter"])

        try folder.write("greeter/init.lua", Self.greeter("hi"))
        #expect(settle().output == "reloaded greeter (init.lua changed)\n")
        #expect(shell.type(":greet").output == "hi\n")

        try folder.write("greeter/init.lua", #"flux.command{name = "greet", run = function() return "#)
        #expect(settle().errors.contains("plugin greeter did not reload (init.lua changed)"))
        #expect(shell.type(":greet").output == "hi\n", "the last version stays")

        try folder.write("greeter/util.lua", "return {}")
        try folder.write("greeter/init.lua", Self.greeter("hey"))
        settle()
        #expect(shell.type(":greet").output == "hey\n")
    }

    @Test("one line says what happened: reloaded, or did not reload and why")
    func oneLine() throws {
        try folder.write("greeter/init.lua", Self.greeter("hello"))
        shell.type(":load \(folder["greeter"])")
        shell.type(":reload --watch greeter")
        try folder.write("greeter/init.lua", Self.greeter("hi"))
        #expect(settle() == ("reloaded greeter (init.lua changed)\n", ""))
        try folder.write("greeter/init.lua", "error('half')")
        let failed = settle().errors
        #expect(failed.hasPrefix("plugin greeter did not reload (init.lua changed): "))
        #expect(failed.contains("init.lua:1: half"))
        #expect(failed.hasSuffix("; its last version stays\n"))
    }

    @Test("a .lua plugin's watch follows its file only; --unwatch and :unload end it; a plugin not loaded is refused")
    func filePluginAndEnds() throws {
        let file = try folder.write("one.lua", Self.greeter("one"))
        shell.type(":load \(file)")
        #expect(shell.type(":reload --watch one").ok)
        try folder.write("other.lua", "x = 1")
        #expect(settle(timeout: 300) == ("", ""), "another file of the folder reloads nothing")
        try folder.write("one.lua", Self.greeter("two"))
        #expect(settle().output == "reloaded one (one.lua changed)\n")
        #expect(shell.type(":greet").output == "two\n")
        #expect(shell.print(":reload --unwatch one") == "stopped watching one\n")
        #expect(shell.type(":reload --unwatch one").errors == "plugin one is not watched (watched: none)\n")
        shell.type(":reload --watch one")
        shell.type(":unload one")
        #expect(shell.shell.host.watchedPlugins.isEmpty)
        #expect(!shell.shell.host.effects.isBusy, "the watch ended with its plugin")
        #expect(shell.type(":reload --watch nope").errors == "unknown plugin 'nope' (loaded: none)\n")
        #expect(shell.type(":reload --watch").errors == "usage: :reload --watch <plugin>\n")
    }
}
