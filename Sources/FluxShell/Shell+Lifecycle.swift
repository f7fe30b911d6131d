import FluxLua
import Foundation

/// A shell's start and end as plugins see them: the user's config, the plugins in dependency order, the
/// session, then the `start` event; `quit` before the shell goes.
extension Shell {
    /// Runs the user's config, loads the plugins, opens the session, and tells the plugins (`start`).
    /// Ctrl-C stops the config or the plugin running, as it stops a line at the prompt (the REPL is not
    /// reading yet, so SIGINT would otherwise end the shell): that one is reported and the start goes on.
    func start() {
        host.builtInCommandNames = Set(Self.commands.map(\.name))
        installExec()
        let userPlugins = configuration.userConfig.flatMap { $0.hasPluginFolder ? [$0.pluginFolder] : nil } ?? []
        let folders = userPlugins + configuration.plugins.filter { !userPlugins.contains($0) }
        let catching = !SignalInterrupts.isInstalled && (configuration.userConfig != nil || !folders.isEmpty)
        if catching { SignalInterrupts.install(interrupt: { LuaVM.interruptAll() }) }
        defer { if catching { SignalInterrupts.uninstall() } }
        // Read before the config runs: `flux.configure` checks its options against their manifests.
        // `--plugins` may name a plugin's file (`tally.lua`, `todo/init.lua`) as well as a folder of plugins.
        let files = folders.filter { $0.hasSuffix(".lua") }
        let found = folders.count == files.count ? [] : host.findPlugins(in: folders.filter { !$0.hasSuffix(".lua") })
        if let config = configuration.userConfig { runUserConfig(config) }
        _ = SignalInterrupts.takeInterrupt()
        if !found.isEmpty {
            host.loadPlugins(found) { _ = SignalInterrupts.takeInterrupt() } // a Ctrl-C stops one plugin
        }
        for file in files { loadPluginFile(file) }
        if let choice = configuration.session {
            openSession(choice)
            if session != nil { host.fire("session_restored") }
        }
        host.fire("start")
        _ = SignalInterrupts.takeInterrupt()
    }

    /// Runs the user's `init.lua`, if there is one, as a line typed at the prompt: its globals are the
    /// prompt's. An error is written (and kept for `:health`) and the shell starts.
    private func runUserConfig(_ config: UserConfig) {
        guard FileManager.default.fileExists(atPath: config.initFile) else { return }
        let outer = host.vm.instructionBudget
        host.vm.instructionBudget = outer ?? UserConfig.instructionBudget
        defer { host.vm.instructionBudget = outer }
        do {
            try host.runFile(config.initFile)
        } catch {
            configError = host.describe(error)
            writeError("error in \(config.initFile) (the shell starts without the rest of it): \(host.describe(error))\n")
        }
        host.flushErrors()
    }

    /// Tells the plugins the shell is leaving (`quit`), once: they may save what they hold.
    public func finish() {
        guard !hasFinished else { return }
        hasFinished = true
        host.fire("quit")
    }
}
