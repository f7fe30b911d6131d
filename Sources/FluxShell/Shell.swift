import Flux
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
    let show: LuaRef
    let pretty: LuaRef
    let complete: LuaRef
    // `flux.dispatch` and `flux.state` as installed, whatever scripts later do to the global `flux`.
    let fluxDispatch: LuaRef
    let fluxState: LuaRef
    var watches: [(view: String, subscription: StoreSubscription)] = []
    var recording: Recording?
    /// What every action did, for `:log`, `:watch` and `:history`.
    let monitor = ActionMonitor()
    /// Whether `:log on` (or `flux.log(true)`) is in force.
    var isLogging = false
    /// The session kept, if any.
    public internal(set) var session: Session?

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
        self.write = write
        self.writeError = writeError
        let dispatcher = Dispatcher()
        features = configuration.features ? FluxFeatures.install(on: dispatcher) : nil
        host = FluxHost(dispatcher: dispatcher)
        host.report = { message in writeError(message + "\n") }
        var options = RenderOptions.detect()
        options.color = options.color && configuration.color
        if let width = configuration.width { options.width = width }
        if let unicode = configuration.unicode { options.unicode = unicode }
        host.renderOptions = options
        for view in features?.views ?? [] { host.views.register(view) }
        do {
            let results = try host.vm.call(try host.vm.load(ShellPrelude.source, chunkName: "=fluxsh"),
                                           results: 1) { lua, range in lua.ref(at: range.lowerBound) }
            show = try Self.field("show", of: results, in: host.vm)
            pretty = try Self.field("pretty", of: results, in: host.vm)
            complete = try Self.field("complete", of: results, in: host.vm)
            let flux = host.vm.globalRef("flux")
            fluxDispatch = try Self.field("dispatch", of: flux, in: host.vm)
            fluxState = try Self.field("state", of: flux, in: host.vm)
        } catch {
            preconditionFailure("the shell prelude does not load: \(error)")
        }
        installDevtools()
        host.vm.memoryLimit = configuration.memoryLimit
        host.vm.instructionBudget = configuration.instructionBudget
        for folder in configuration.plugins { host.loadPlugins(in: folder) }
        if let choice = configuration.session { openSession(choice) }
    }

    /// A `:record` still running ends with the shell: its file is closed; the session is saved.
    deinit {
        stopRecording()
        session?.close()
    }

    private static func field(_ name: String, of table: LuaRef, in vm: LuaVM) throws -> LuaRef {
        let lua = vm.stack
        lua.push(table)
        _ = lua.rawGet(name, from: -1)
        defer { lua.pop(2) }
        return lua.ref(at: -1)
    }

    // MARK: Input

    /// What an input compiles to.
    public enum Compiled {
        /// A chunk ready to run.
        case chunk(LuaRef)
        /// A `:` command line.
        case command(String)
        /// The chunk stops before its end: more lines are needed (the REPL's `>>` prompt).
        case incomplete
        /// The chunk does not compile.
        case failed(LuaError)
    }

    /// Compiles `input` as the REPL does: a `:` line is a command; a leading `=` means `return`; an
    /// expression is tried first with `return` before it, so that its value prints.
    public func compile(_ input: String) -> Compiled {
        let trimmed = input.drop(while: \.isBlank)
        if trimmed.hasPrefix(":") { return .command(String(trimmed)) }
        var source = input
        if trimmed.hasPrefix("=") { source = "return " + trimmed.dropFirst() }
        if let chunk = try? host.vm.load("return " + source + ";", chunkName: "=stdin") { return .chunk(chunk) }
        do {
            return .chunk(try host.vm.load(source, chunkName: "=stdin"))
        } catch let error as LuaError {
            if error.kind == .syntax, error.message.hasSuffix("<eof>") { return .incomplete }
            return .failed(error)
        } catch {
            return .failed(LuaError(kind: .syntax, message: "\(error)"))
        }
    }

    /// Runs one complete input as typed at the prompt: a `:` command or a Lua chunk, printing what it
    /// returns.
    ///
    /// - Returns: false when it failed; the error has been written.
    @discardableResult
    public func execute(_ input: String) -> Bool {
        switch compile(input) {
        case let .command(line):
            return runCommand(line)
        case let .chunk(chunk):
            return run(chunk)
        case .incomplete:
            reportError(LuaError(kind: .syntax, message: "stdin: unfinished chunk: more input expected"))
            return false
        case let .failed(error):
            reportError(error)
            return false
        }
    }

    /// Runs a compiled chunk and prints its results.
    ///
    /// - Returns: false when it failed; the error has been written.
    @discardableResult
    public func run(_ chunk: LuaRef) -> Bool {
        followTerminalWidth()
        defer { acknowledge() }
        do {
            // The chunk is called directly, so that its traceback starts at it; its results, still on
            // the stack, go to `show`.
            let text = try host.vm.call(chunk) { lua, results -> String? in
                guard !results.isEmpty else { return nil }
                try lua.ensureSpace(Int32(results.count) + 1)
                lua.push(show)
                for index in results { lua.pushCopy(of: index) }
                try lua.pcall(arguments: Int32(results.count), results: 1)
                defer { lua.pop() }
                return lua.string(at: -1)
            }
            if let text { print(text) }
            return true
        } catch {
            reportError(error)
            return false
        }
    }

    /// Runs the script at `path`; its errors are thrown, with file, line and traceback.
    public func runScript(at path: String) throws {
        defer { acknowledge() }
        try host.runFile(path)
    }

    /// The prompt for a first line (`_PROMPT`, else `flux> `) or a continuation line (`_PROMPT2`, else `>> `).
    public func prompt(continuation: Bool) -> String {
        let custom = host.vm.global(continuation ? "_PROMPT2" : "_PROMPT")
        switch custom {
        case let .string(text): return text
        case .nil: return continuation ? ">> " : "flux> "
        default: return describe(custom)
        }
    }

    /// Runs the code in `LUA_INIT_5_4` or `LUA_INIT` (`@file` runs a file), as `lua` does at start.
    ///
    /// - Returns: false when it failed; the error has been written.
    @discardableResult
    public func runInit(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let (name, code) = [("LUA_INIT_5_4", environment["LUA_INIT_5_4"]), ("LUA_INIT", environment["LUA_INIT"])]
            .first(where: { $0.1 != nil }).map({ ($0.0, $0.1!) }) else { return true }
        do {
            if code.hasPrefix("@") {
                try host.runFile(String(code.dropFirst()))
            } else {
                try host.run(code, chunkName: "=" + name)
            }
            return true
        } catch {
            reportError(error)
            return false
        }
    }

    // MARK: Output

    /// Tables fit the terminal as it is now, resized or not, unless a width was configured (or COLUMNS set).
    func followTerminalWidth() {
        guard configuration.width == nil else { return }
        host.renderOptions.width = RenderOptions.detect().width
    }

    /// Writes `text` and a newline.
    func print(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Writes an error: its message, and the traceback of a Lua error.
    func reportError(_ error: any Error) {
        writeError(host.describe(error) + "\n")
    }

    /// Writes a one-line error with no traceback (a command's).
    func reportMessage(_ message: String) {
        writeError(message + "\n")
    }

    /// A value as the REPL prints it inside a table.
    func describe(_ value: LuaValue) -> String {
        (try? host.vm.call(pretty, results: 1, arguments: { lua in lua.push(value) }) { lua, range in
            lua.string(at: range.lowerBound)
        }) ?? "?"
    }

    /// The state of `store` printed as a Lua table.
    func stateText(of store: String) throws -> String {
        let copy = try host.vm.call(fluxState, results: 1, arguments: { lua in lua.push(store) }) { lua, range in
            lua.ref(at: range.lowerBound)
        }
        return try host.vm.call(pretty, results: 1, arguments: { lua in lua.push(copy) }) { lua, range in
            lua.string(at: range.lowerBound) ?? "nil"
        }
    }
}

/// An action log being written by `:record`.
struct Recording {
    let path: String
    let file: FileWriter
    let recorder: ActionRecorder
}
