import FluxTable

/// What a ``Shell`` starts with.
///
/// ```swift
/// var configuration = ShellConfiguration()
/// configuration.features = false          // start with no stores
/// configuration.plugins = ["plugins"]     // load every plugin in ./plugins
/// let shell = Shell(configuration: configuration, write: { print($0, terminator: "") }, writeError: { _ in })
/// ```
public struct ShellConfiguration: Sendable {
    /// Whether the shipped features (annotation filter, issues, tic-tac-toe, connect four) are installed.
    public var features = true
    /// Folders whose plugins are loaded at start, in order.
    public var plugins: [String] = []
    /// Whether rendered tables may use colour (only on a terminal that allows it).
    public var color = true
    /// The width tables are rendered to; nil for the terminal's.
    public var width: Int?
    /// Whether rendered tables use Unicode marks (✓, →); nil for what the locale allows.
    public var unicode: Bool?
    /// The most memory Lua may hold, in bytes; a script allocating without end stops with an error.
    public var memoryLimit: Int? = 1 << 30
    /// The most Lua instructions one input or script may run before it stops with an error; nil for
    /// no limit (the REPL, where Ctrl-C stops a runaway script).
    public var instructionBudget: Int?

    /// The user's config (`init.lua`, and the plugins folder beside it) run at start; nil for none, as
    /// `fluxsh --clean`, `fluxsh run` and `fluxsh test` start.
    public var userConfig: UserConfig?

    /// The session whose stores, journal and undo history are restored at start and saved after every
    /// input; nil for none.
    public var session: SessionChoice?
    /// Whether effects' timers run on a virtual clock that only `flux.advance` moves (`fluxsh test`).
    public var virtualClock = false

    /// The defaults: the shipped features, no plugins, colour on a terminal, the terminal's width.
    public init() {}

    /// `detected` (what the terminal allows) with what was configured put over it.
    func renderOptions(detected: RenderOptions) -> RenderOptions {
        var options = detected
        options.color = options.color && color
        if let width { options.width = width }
        if let unicode { options.unicode = unicode }
        return options
    }
}
