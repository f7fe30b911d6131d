import ArgumentParser
import FluxLua
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `fluxsh` command line: the REPL by default, `run` and `test` for scripts.
///
/// ```
/// fluxsh                          # the REPL, with the shipped features
/// fluxsh --plugins plugins        # … and every plugin in ./plugins
/// fluxsh run setup.lua demo.lua   # run scripts in one shell; stop at the first error
/// fluxsh test examples            # each script in a fresh shell; ok/FAIL per script
/// fluxsh --session game           # keep the stores and undo history in the session "game"
/// ```
public struct Fluxsh: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fluxsh",
        abstract: "A shell hosting Flux stores, with Lua 5.4 to dispatch actions, define stores and render views.",
        discussion: """
            Without a subcommand, fluxsh reads Lua and : commands from the terminal (with line editing, \
            history and Tab completion) or, without a prompt, from a pipe. Type :help in it for the commands.
            """,
        version: Fluxsh.version,
        subcommands: [Run.self, Test.self]
    )

    /// The version `--version` prints.
    public static let version = "0.1.0"

    @OptionGroup var options: ShellOptions

    public init() {}

    /// The REPL.
    public func run() throws {
        let editor = LineEditor()
        var configuration = options.configuration
        configuration.session = try options.session.choice(defaultName: editor.isInteractive ? SessionChoice.defaultName : nil)
        let shell = Shell(configuration: configuration, write: writeOut, writeError: writeErr)
        if editor.isInteractive { writeOut(Self.banner(for: shell)) }
        shell.runInit()
        let status = REPL(shell: shell, editor: editor).run()
        if status != 0 { throw ExitCode(status) }
    }

    static func banner(for shell: Shell) -> String {
        let stores = shell.dispatcher.stores.map(\.name)
        var text = "FluxShell \(Fluxsh.version) — Lua 5.4 with Flux stores"
        text += stores.isEmpty ? " (none yet)\n" : ": \(stores.joined(separator: ", "))\n"
        if shell.host.views.names.contains("annotationFilter") {
            text += "Try  :render annotationFilter   :dispatch ticTacToe.placeToken {index = 4}   flux.state(\"ticTacToe\")\n"
        }
        text += ":help lists the commands; Tab completes; Ctrl-D leaves.\n"
        return text
    }
}

/// The options every `fluxsh` mode takes.
struct ShellOptions: ParsableArguments {
    @Option(name: .customLong("plugins"), help: ArgumentHelp("Load every plugin in a folder (repeatable).", valueName: "dir"))
    var plugins: [String] = []

    @Flag(name: .customLong("no-color"), help: "Render tables without colour.")
    var noColor = false

    @Flag(name: .customLong("no-features"), help: "Start with no stores: only plugins and scripts define them.")
    var noFeatures = false

    @OptionGroup var session: SessionOptions

    var configuration: ShellConfiguration {
        var configuration = ShellConfiguration()
        configuration.features = !noFeatures
        configuration.plugins = plugins
        configuration.color = !noColor
        return configuration
    }
}

extension Fluxsh {
    /// `fluxsh run FILE…`.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run scripts in one shell; stop with a non-zero status at the first error."
        )

        @OptionGroup var options: ShellOptions

        @Argument(help: ArgumentHelp("The Lua scripts to run, in order.", valueName: "file"))
        var files: [String]

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one script to run") }
        }

        func run() throws {
            var configuration = options.configuration
            configuration.session = try options.session.choice(defaultName: nil)
            let status = ScriptRunner(configuration: configuration, write: writeOut, writeError: writeErr).run(files)
            if status != 0 { throw ExitCode(status) }
        }
    }

    /// `fluxsh test [DIR|FILE…]`.
    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run each script in a fresh shell; print ok or FAIL per script, then the counts."
        )

        @OptionGroup var options: ShellOptions

        @Argument(help: ArgumentHelp("Scripts, or folders of .lua scripts.", valueName: "dir|file"))
        var paths: [String] = ["examples"]

        func validate() throws {
            if options.session.name != nil || options.session.fresh {
                throw ValidationError("test runs each script in a fresh shell: --session and --fresh do not apply")
            }
        }

        func run() throws {
            var configuration = options.configuration
            configuration.color = false
            let status = ScriptRunner(configuration: configuration, write: writeOut, writeError: writeErr).test(paths)
            if status != 0 { throw ExitCode(status) }
        }
    }
}

/// Writes to standard output through C's buffer, the one Lua's `print` uses, so they stay in order.
func writeOut(_ text: String) {
    print(text, terminator: "")
}

/// Writes to standard error after flushing standard output, so that piped output keeps its order.
func writeErr(_ text: String) {
    fflush(nil)
    var text = text
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}
