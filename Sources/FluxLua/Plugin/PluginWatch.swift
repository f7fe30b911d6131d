import Flux
import Foundation
import FluxEffects

/// A plugin reloaded when one of its files changes (`:reload --watch NAME`), on the effects runtime's
/// file watch: the plugin's folder (or, for a `.lua` plugin, the folder holding it, filtered to its
/// file) is watched, and once its files have been quiet for ``FluxHost/watchQuiet`` the plugin reloads,
/// all-or-nothing as `:reload` does — a file saved half-written fails to load and the last version
/// stays until the next save.
struct PluginWatch {
    /// The watch of the folder.
    let watch: Effect
    /// The reload waiting for the files to be quiet, if a change came.
    var pending: Effect?

    /// The owner of a plugin's watch and its timers: not the plugin's own, whose effects a successful
    /// reload ends.
    static func owner(of name: String) -> EffectOwner { EffectOwner("plugin watch \(name)") }
}

extension FluxHost {
    /// How long a watched plugin's files must stay unchanged before it reloads, in milliseconds: an
    /// editor's save is several events (a write, a rename), and one reload should follow it.
    public static let watchQuiet: Double = 100

    /// The plugins reloaded when their files change, by name.
    public var watchedPlugins: [String] { pluginExtras.watches.keys.sorted() }

    /// Reloads the plugin `name` whenever one of its `.lua` files changes, once they have been quiet for
    /// ``watchQuiet``; `tell` gets one line for each reload, and whether it failed (the last version
    /// stays). Watching a watched plugin again starts its watch afresh. `:unload` ends the watch.
    ///
    /// A folder plugin's folder is watched, not its subfolders: a module in `NAME/sub/init.lua` needs a
    /// `:reload`.
    ///
    /// - Returns: the folder watched.
    /// - Throws: for a plugin that is not loaded, or a folder that cannot be watched.
    @discardableResult
    public func watchPlugin(named name: String, tell: @escaping (_ line: String, _ failed: Bool) -> Void) throws -> String {
        guard let plugin = plugins.first(where: { $0.name == name }) else {
            throw FluxScriptError(Self.unknownPlugin(name, loaded: plugins.map(\.name)))
        }
        unwatchPlugin(named: name)
        let folder = plugin.folder ?? PathParts.folder(of: plugin.entry)
        let only = plugin.folder == nil ? PathParts.name(of: plugin.entry) : nil
        let reference = self.reference
        let watch: Effect
        do {
            watch = try effects.watch(folder, owner: PluginWatch.owner(of: name)) { _, file in
                // An editor's own files (`.init.lua.swp`, `init.lua~`, `4913`) change nothing.
                if let only { guard file == only else { return } } else { guard file.hasSuffix(".lua"), !file.hasPrefix(".") else { return } }
                reference.host?.pluginFileChanged(name, file: file, tell: tell)
            }
        } catch let error as EffectError {
            throw FluxScriptError("cannot watch plugin \(name): \(error)")
        }
        pluginExtras.watches[name] = PluginWatch(watch: watch)
        return folder
    }

    /// Stops reloading the plugin `name` when its files change.
    ///
    /// - Returns: whether it was watched.
    @discardableResult
    public func unwatchPlugin(named name: String) -> Bool {
        guard let watch = pluginExtras.watches.removeValue(forKey: name) else { return false }
        watch.pending?.cancel()
        watch.watch.cancel()
        return true
    }

    /// A file of a watched plugin changed: its reload waits for the files to be quiet.
    private func pluginFileChanged(_ name: String, file: String, tell: @escaping (String, Bool) -> Void) {
        guard pluginExtras.watches[name] != nil else { return }
        pluginExtras.watches[name]?.pending?.cancel()
        let reference = self.reference
        pluginExtras.watches[name]?.pending = try? effects.after(Self.watchQuiet, owner: PluginWatch.owner(of: name)) {
            reference.host?.reloadWatched(name, file: file, tell: tell)
        }
    }

    /// Reloads a watched plugin, saying in one line what happened.
    private func reloadWatched(_ name: String, file: String, tell: (String, Bool) -> Void) {
        pluginExtras.watches[name]?.pending = nil
        guard let plugin = plugins.first(where: { $0.name == name }) else {
            unwatchPlugin(named: name)
            return
        }
        do {
            try reload(plugin)
            tell("reloaded \(name) (\(file) changed)", false)
        } catch {
            // One line: the message (the traceback stays for `:plugins`).
            let message = Self.describe(error).split(separator: "\n").first.map(String.init) ?? ""
            tell("plugin \(name) did not reload (\(file) changed): \(message); its last version stays", true)
        }
    }
}
