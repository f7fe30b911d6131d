import Flux
import FluxEffects
import FluxFeatures
import FluxLua
import FluxSession
import FluxTable
import Foundation

/// The stores, the Lua VM and the `:` commands behind one `fluxsh` session.
///
/// A shell owns a dispatcher with the shipped features' stores (unless configured without them), a
/// ``FluxHost`` whose VM runs what is typed, and the views it can render. Input is Lua, as in the
/// standalone `lua` REPL, or a `:` command.
///
/// ```swift
/// let shell = Shell(write: { print($0, terminator: "") }, writeError: { _ in })
/// shell.execute(":dispatch ticTacToe.placeToken {index = 4}")
/// shell.execute(":render ticTacToe")
/// shell.execute("flux.state('ticTacToe').board[5]")   // prints "X"
/// ```
///
/// Every input either succeeds or leaves every store as it was: a failed dispatch rolls back, and an
/// error is written with its traceback through `writeError`.
public final class Shell {
    /// What the shell started with.
    public let configuration: ShellConfiguration
    /// The dispatcher every store is registered with.
    public var dispatcher: Dispatcher { host.dispatcher }
    /// The Lua host: its VM, the `flux` module and the views.
    public let host: FluxHost
    /// The shipped features, when installed.
    public let features: Features?
    /// Whether `:quit` was given.
    public internal(set) var isFinished = false

    let write: (String) -> Void
    let writeError: (String) -> Void
    /// The prelude's `show`, `pretty`, `complete` and `set_width`.
    let show: LuaRef
    let pretty: LuaRef
    let complete: LuaRef
    let setValueWidth: LuaRef
    /// The width printed values were last laid out for (``followTerminalWidth()``).
    var valueWidth: Int?
    /// The views `:watch` follows.
    var watches = WatchedViews() {
        didSet { updateMonitor() }
    }
    /// The log `:record` is writing, if any.
    var recording: Recording?
    /// What an action did, for `:log` and `:watch`; what each undo step holds, for `:history`.
    let monitor = ActionMonitor()
    /// Whether `:log on` (or `flux.log(true)`) is in force.
    var isLogging = false {
        didSet { updateMonitor() }
    }
    /// The session kept, if any.
    public internal(set) var session: Session?
    /// The `:outbox drop NAME ID` asked about in a terminal, which the same command typed again confirms.
    var outboxDropAsked: String?
    /// The error of the user's `init.lua` at start, if it failed.
    public internal(set) var configError: String?
    /// Whether ``finish()`` has told the plugins the shell is leaving.
    var hasFinished = false
    /// What opening the session gave back (the banner says it).
    public internal(set) var restored: SessionRestoreSummary?

    /// A shell with `configuration`'s stores and plugins.
    ///
    /// - Parameters:
    ///   - write: Receives what the shell prints: results, tables, listings; each piece ends in a newline.
    ///   - writeError: Receives errors, and the errors of subscribers and plugins nobody could catch.
    public init(
        configuration: ShellConfiguration = ShellConfiguration(),
        write: @escaping (String) -> Void,
        writeError: @escaping (String) -> Void
    ) {
        self.configuration = configuration
        // Output while a line is edited at the prompt (an effect's callback) goes above the line, cleared first.
        self.write = { text in
            PromptGuard.hide()
            write(text)
        }
        // Errors carry text from scripts (messages, names): written escaped, never as terminal commands.
        let writeError: (String) -> Void = { text in
            PromptGuard.hide()
            writeError(EscapedText.escaped(text))
        }
        self.writeError = writeError
        let dispatcher = Dispatcher()
        features = configuration.features ? FluxFeatures.install(on: dispatcher) : nil
        host = FluxHost(dispatcher: dispatcher, effects: Effects(clock: configuration.virtualClock ? .virtual : .real))
        host.report = { message in writeError(message + "\n") }
        host.renderOptions = configuration.renderOptions(detected: RenderOptions.detect())
        for view in features?.views ?? [] { host.views.register(view) }
        (show, pretty, complete, setValueWidth) = ShellPrelude.functions(in: host.vm)
        installDevtools()
        followTerminalWidth()
        host.vm.memoryLimit = configuration.memoryLimit
        host.vm.instructionBudget = configuration.instructionBudget
        host.effectsShouldStop = { SignalInterrupts.interruptPending }
        start() // the user's config, plugins, session (Shell+Lifecycle)
    }

    /// `--plugins plugins/todo/init.lua` or `--plugins tally.lua`: one plugin by its file (a folder
    /// plugin's `init.lua` loads its folder, so that its `require` finds its modules).
    func loadPluginFile(_ file: String) {
        let path = PathParts.name(of: file) == "init.lua" ? PathParts.folder(of: file) : file
        do {
            try host.loadPlugin(at: path.isEmpty ? "." : path)
        } catch {
            host.report("plugin \((try? Plugin(at: path).name) ?? file) failed to load: \(FluxHost.describe(error))")
        }
        _ = SignalInterrupts.takeInterrupt()
        host.flushErrors()
    }

    /// The plugins hear `quit` (unless they have); then every effect ends, and a `:record` still running
    /// ends with the shell: its file is closed; the session is saved.
    deinit {
        finish() // once: `fluxsh` tells the plugins before it exits; a script's shell, as it goes
        host.effects.endAll()
        stopRecording()
        session?.close()
    }
}
