import ArgumentParser
import FluxLua
import FluxTable
import Foundation
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
        usage: """
            fluxsh [<options>] [-l <mod>]... [-e <stat>]... [-i] [<script> [<args>...]]
            fluxsh run [<options>] <file>...
            fluxsh test [<options>] [<dir|file>...]
            fluxsh help [run|test]
            """,
        discussion: """
            Without a subcommand, fluxsh reads Lua and : commands from the terminal (with line editing, \
            history and Tab completion) or, without a prompt, from a pipe. Type :help in it for the commands.

            \(UserConfig.locations)
            """,
        version: Fluxsh.version,
        subcommands: [Run.self, Test.self, Open.self]
    )

    /// The version `--version` prints.
    public static let version = "0.1.0"

    @OptionGroup var options: ShellOptions

    @OptionGroup var lua: LuaCommandLine

    @Flag(name: .customLong("man"), help: "Print the manual page fluxsh(1) in roff (man -l FILE reads it).")
    var man = false

    public init() {}

    /// Parses the command line and runs it. A script argument would take the names `run`, `test` and
    /// `help`, so the first word that is not an option (or an option's value) is looked at first: a
    /// subcommand's name runs that subcommand with the other words, the options before it included
    /// (`fluxsh --no-color test`); `help` shows the help of the subcommand named after it, or of fluxsh.
    public static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch subcommand(in: arguments) {
        case nil where arguments.contains(where: { $0 == "--help" || $0 == "-h" }) && !arguments.contains("--"):
            printHelp()
        case nil: main(arguments)
        case let (.help, rest)?: help(rest)
        case let (.command(subcommand), rest)?: subcommand.main(rest)
        }
    }

    /// What the first plain word of a command line names.
    enum Subcommand {
        case command(ParsableCommand.Type)
        /// `fluxsh help [SUBCOMMAND]`, as the help's last line offers.
        case help
    }

    /// The subcommand the first plain word of `arguments` names, and the other words; nil for none.
    static func subcommand(in arguments: [String]) -> (Subcommand, [String])? {
        let valued: Set = ["--plugins", "--session", "-e", "-l"]
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { return nil }
            if word.hasPrefix("-") && word.count > 1 {
                index += valued.contains(word) ? 2 : 1
                continue
            }
            var rest = arguments
            rest.remove(at: index)
            if word == "help" { return (.help, rest) }
            guard let subcommand = configuration.subcommands.first(where: { $0._commandName == word }) else { return nil }
            return (.command(subcommand), rest)
        }
        return nil
    }

    /// `fluxsh help [SUBCOMMAND]`: the subcommand's help, or fluxsh's; an unknown name is a usage error.
    static func help(_ words: [String]) -> Never {
        let names = words.filter { !$0.hasPrefix("-") }
        let subcommands: [ParsableCommand.Type] = configuration.subcommands
        if names.isEmpty { printHelp() }
        if names.count == 1, let subcommand = subcommands.first(where: { $0._commandName == names[0] }) {
            subcommand.exit(withError: CleanExit.helpRequest(subcommand))
        }
        let known = subcommands.map { $0._commandName }.joined(separator: ", ")
        Fluxsh.exit(withError: ValidationError("help: no subcommand '\(names.joined(separator: " "))' (subcommands: \(known))"))
    }

    /// fluxsh's help, ending with EXAMPLES, ENVIRONMENT and FILES, and exit 0.
    static func printHelp() -> Never {
        writeOut(helpMessage() + "\n\n" + FluxshManual.helpSections + "\n")
        Fluxsh.exit()
    }

    /// The REPL, or a script and statements as `lua` runs them.
    public func run() throws {
        if man { return writeOut(FluxshManual.manualPage()) }
        let editor = LineEditor()
        var configuration = options.configuration
        configuration.userConfig = options.clean ? nil : UserConfig.located()
        // A session is kept by default only for a person at the prompt, not for a script run as `lua` runs it.
        let prompts = editor.isInteractive && (!lua.runsCode || lua.wantsPrompt)
        configuration.session = try options.session.choice(defaultName: prompts ? SessionChoice.defaultName : nil)
        try SessionOptions.refuseIfOpenElsewhere(configuration.session)
        var reported = false
        let shell = Shell(configuration: configuration, write: writeOut) { text in
            reported = true
            writeErr(text)
        }
        if lua.runsCode {
            let ran = shell.runInit() && lua.run(in: shell)
            // A subscriber's, view's or watch's error fails the run too, as in `fluxsh run`.
            if !lua.wantsPrompt {
                shell.finish()
                throw ExitCode(ran && !reported ? 0 : 1)
            }
        }
        // The banner belongs with the prompt, on the terminal, not in a file standard output goes to.
        if editor.isInteractive { (isatty(STDOUT_FILENO) == 1 ? writeOut : writeErr)(Self.banner(for: shell)) }
        if !lua.runsCode { shell.runInit() }
        let status = REPL(shell: shell, editor: editor).run()
        shell.finish()
        if status != 0 { throw ExitCode(status) }
    }

    static func banner(for shell: Shell, width: Int = RenderOptions.detect().width) -> String {
        let stores = shell.dispatcher.stores.map(\.name)
        let title = "FluxShell \(Fluxsh.version) — Lua 5.4 with Flux stores"
            + (stores.isEmpty ? " (none yet)" : ": \(stores.joined(separator: ", "))")
        // Broken at spaces, not where the terminal would cut it, in the middle of a store's name.
        var text = FluxReference.wrap(title, width: width).map { $0 + "\n" }.joined()
        if shell.host.views.names.contains("annotationFilter") {
            // A restored game may have cell 4 taken: then the hint starts it again.
            let play = shell.restored?.changedStores.contains("ticTacToe") == true
                ? ":dispatch ticTacToe.reset" : ":dispatch ticTacToe.placeToken {index = 4}"
            let hints = [":render annotationFilter", play, "flux.state(\"ticTacToe\")"]
            let line = "Try  " + hints.joined(separator: "   ")
            // The terminal's width now: on a narrow one each hint gets a line of its own.
            text += line.count <= width ? line + "\n" : "Try\n" + hints.map { "  " + $0 + "\n" }.joined()
        }
        if let restored = shell.restored {
            text += FluxReference.wrap(restored.line, width: width).map { $0 + "\n" }.joined()
        }
        text += FluxReference.wrap(":help lists the commands; Tab completes; Ctrl-D leaves.", width: width).map { $0 + "\n" }.joined()
        return text
    }
}

/// The options every `fluxsh` mode takes.
struct ShellOptions: ParsableArguments {
    @Option(name: .customLong("plugins"), help: ArgumentHelp("Load every plugin in a folder, or one plugin by its .lua file (repeatable).", valueName: "dir|file"))
    var plugins: [String] = []

    @Flag(name: .customLong("no-color"), help: "Render tables without colour.")
    var noColor = false

    @Flag(name: .customLong("no-features"), help: "Start with no stores: only plugins and scripts define them.")
    var noFeatures = false

    @Flag(name: .customLong("clean"), help: "Start without the user's init.lua and plugins folder (see above).")
    var clean = false

    /// The options as a command line, for a child process.
    var arguments: [String] {
        plugins.flatMap { ["--plugins", $0.expandingTilde] } + (noColor ? ["--no-color"] : []) + (noFeatures ? ["--no-features"] : [])
    }

    func validate() throws {
        for folder in plugins.map(\.expandingTilde) {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory)
            // A plugin's own file (`plugins/todo/init.lua`, `plugins/tally.lua`) loads that plugin alone.
            guard exists, isDirectory.boolValue || folder.hasSuffix(".lua") else {
                throw ValidationError(exists ? "--plugins \(folder): neither a folder of plugins nor a plugin's .lua file"
                                             : "--plugins \(folder): no such folder or file")
            }
        }
    }

    @OptionGroup var session: SessionOptions

    var configuration: ShellConfiguration {
        var configuration = ShellConfiguration()
        configuration.features = !noFeatures
        configuration.plugins = plugins.map(\.expandingTilde)
        configuration.color = !noColor
        return configuration
    }
}

extension Fluxsh {
    /// `fluxsh run FILE…`.
    struct Run: ParsableCommand {
        // Its usage and errors name it as typed, `fluxsh run`: main() runs it without its parent.
        static let configuration = CommandConfiguration(
            _superCommandName: "fluxsh",
            abstract: "Run scripts in one shell; stop with a non-zero status at the first error."
        )

        @OptionGroup var options: ShellOptions

        @Argument(help: ArgumentHelp("The Lua scripts to run, in order.", valueName: "file"))
        var files: [String]

        @Option(help: ArgumentHelp("The seconds the run waits for live effects (timers, processes, watches) once the scripts ran; by default as long as any is live.", valueName: "seconds"))
        var timeout: Double?

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one script to run") }
            if let timeout { guard timeout.isFinite, timeout >= 0 else { throw ValidationError("--timeout must be 0 seconds or more") } }
        }

        func run() throws {
            var configuration = options.configuration
            configuration.session = try options.session.choice(defaultName: nil)
            try SessionOptions.refuseIfOpenElsewhere(configuration.session)
            var runner = ScriptRunner(configuration: configuration, write: writeOut, writeError: writeErr)
            runner.timeout = timeout
            let status = runner.run(files)
            if status != 0 { throw ExitCode(status) }
        }
    }

    /// `fluxsh test [DIR|FILE…]`.
    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            _superCommandName: "fluxsh",
            abstract: "Run each script in a fresh shell; print ok or FAIL per script, then the counts."
        )

        @OptionGroup var options: ShellOptions

        @Option(help: ArgumentHelp("Run the scripts whose path contains this text, and of the others the tests whose name does.", valueName: "pattern"))
        var filter: String?

        @Flag(name: .shortAndLong, help: "Show each test's time and a failed test's traceback.")
        var verbose = false

        @Flag(name: .customShort("x"), help: "Stop at the first failure.")
        var exitFirst = false

        @Flag(help: "List the tests instead of running them.")
        var list = false

        @Option(help: ArgumentHelp("Also write the results as JUnit XML to this file.", valueName: "file"))
        var junit: String?

        @Flag(help: "Write the results in the Test Anything Protocol.")
        var tap = false

        @Option(help: ArgumentHelp("How many scripts run at once (default: the number of cores).", valueName: "n"))
        var jobs: Int?

        @Flag(help: "Record the text expect_snapshot is given as its golden file.")
        var updateSnapshots = false

        @Option(help: ArgumentHelp("The seconds a script may run before it fails.", valueName: "seconds"))
        var timeout: Double = 60

        /// Set on the child process that runs one script: where it writes its verdict.
        @Option(help: .hidden)
        var report: String?

        @Argument(help: ArgumentHelp("Scripts, or folders searched (with their subfolders) for .lua scripts.", valueName: "dir|file"))
        var paths: [String] = ["examples"]

        func validate() throws {
            guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more") }
            if options.session.name != nil || options.session.fresh {
                throw ValidationError("test runs each script in a fresh shell: --session and --fresh do not apply")
            }
        }

        func run() throws {
            var configuration = options.configuration
            configuration.color = false
            let runner = ScriptRunner(configuration: configuration, write: writeOut, writeError: writeErr)
            var test = TestOptions()
            test.filter = filter
            test.verbose = verbose
            test.stopAtFirstFailure = exitFirst
            test.listing = list
            test.junit = junit
            test.tap = tap
            if let jobs { test.jobs = jobs }
            test.updatingSnapshots = updateSnapshots
            test.timeout = timeout
            let status: Int32
            if let report, paths.count == 1 {
                status = runner.testOne(paths[0], report: report, options: test)
            } else {
                // Each script in a process of its own: an os.exit, a crash or a hang ends that one alone.
                let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                    ?? CommandLine.arguments[0]
                status = runner.test(paths, options: test, isolation: .process(
                    executable: executable, arguments: ["test"] + options.arguments))
            }
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
    text.withUTF8 { bytes in
        var offset = 0
        // Whole: Ctrl-C (which does not restart a write) may cut one short on a slow terminal.
        while offset < bytes.count {
            let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
