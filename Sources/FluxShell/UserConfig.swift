import Foundation

/// The user's own files: `init.lua`, run as the shell starts (before plugins, with the prompt's
/// globals), and the `plugins` folder beside it, whose plugins load without `--plugins`.
///
/// They live in `$XDG_CONFIG_HOME/fluxsh/`, else `~/.config/fluxsh/`. `fluxsh --clean` starts with
/// neither; `fluxsh run` and `fluxsh test` never read them, so a script behaves the same everywhere.
///
/// ```lua
/// -- ~/.config/fluxsh/init.lua
/// _PROMPT = "λ "
/// flux.configure("z_stats", {window = 20})   -- options of a plugin, before it loads
/// ```
public struct UserConfig: Sendable, Equatable {
    /// The folder: `$XDG_CONFIG_HOME/fluxsh` or `~/.config/fluxsh`.
    public let folder: String

    /// The config in `folder`.
    public init(folder: String) {
        self.folder = folder
    }

    /// The config file, run at start.
    public var initFile: String { (folder as NSString).appendingPathComponent("init.lua") }
    /// The folder whose plugins load at start.
    public var pluginFolder: String { (folder as NSString).appendingPathComponent("plugins") }

    /// The most instructions the config may run when no budget is set: a loop in it stops with an error
    /// (as Ctrl-C stops it) and the shell starts.
    public static let instructionBudget = 1_000_000_000

    /// The user's config folder as `environment` places it; nil when there is no home to put it in.
    public static func located(environment: [String: String] = ProcessInfo.processInfo.environment) -> UserConfig? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return UserConfig(folder: config + "/fluxsh")
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return UserConfig(folder: home + "/.config/fluxsh")
    }

    /// Where the files live, for `fluxsh --help`.
    static let locations = """
        At start fluxsh runs $XDG_CONFIG_HOME/fluxsh/init.lua (else ~/.config/fluxsh/init.lua) with the \
        prompt's globals, then loads the plugins of $XDG_CONFIG_HOME/fluxsh/plugins/ (else \
        ~/.config/fluxsh/plugins/) and of each --plugins folder; --clean starts with neither. fluxsh run and \
        fluxsh test read neither.
        """

    /// Whether the plugin folder exists.
    var hasPluginFolder: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: pluginFolder, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
