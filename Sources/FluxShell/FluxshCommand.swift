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
///
/// ArgumentParser routes the words: a first plain word naming a subcommand runs it, anything else runs
/// ``Start`` (the default subcommand: the prompt, or a script as `lua` runs one). Options typed before a
/// subcommand's name (`fluxsh --no-color test`) are this command's; each subcommand merges them with its
/// own (``ShellOptions/merged(after:)``), which are of a type of their own: a group of one type at two
/// levels would be decoded once, at the first, and the second level's words lost.
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
        subcommands: [Start.self, Run.self, Test.self, Open.self, Help.self],
        defaultSubcommand: Start.self
    )

    /// The version `--version` prints.
    public static let version = "0.1.0"

    /// The options typed before a subcommand's name.
    @OptionGroup var options: ShellOptions<Fluxsh>

    public init() {}

    /// Parses the command line and runs it; a request for fluxsh's help (`--help`, `help`, or `--help`
    /// beside the default mode's options) prints ``printHelp()``'s, which has the default mode's options
    /// and the sections ArgumentParser does not make.
    public static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            exit(withMessageFor: error, arguments: arguments)
        }
    }

    /// Prints what `error` says, as ArgumentParser's `exit(withError:)` does, and exits with its status;
    /// with three differences. A request for fluxsh's help (`--help`, `help`, or `--help` after the default
    /// mode's options) prints ``printHelp()``'s, which has the default mode's options and the sections
    /// ArgumentParser does not make. The default mode's name, only there to be routed to, is not shown
    /// (`See 'fluxsh --help'`). And a subcommand named with nothing after it (`fluxsh run`) shows its
    /// help after the error, as ArgumentParser does for a command given no words at all.
    static func exit(withMessageFor error: any Error, arguments: [String]) -> Never {
        let code = exitCode(for: error)
        var message = fullMessage(for: error)
        if code == .success, message == helpMessage() || message == helpMessage(for: Start.self) { printHelp() }
        message = message.replacingOccurrences(of: "'fluxsh \(Start._commandName) ", with: "'fluxsh ")
        if code == .validationFailure, arguments.count == 1,
           let named = configuration.subcommands.first(where: { $0.configuration.shouldDisplay && $0._commandName == arguments[0] }) {
            message = (message.split(separator: "\n").first.map(String.init) ?? message) + "\n\n" + helpMessage(for: named)
        }
        if !message.isEmpty { (code == .success ? writeOut : writeErr)(message + "\n") }
        Fluxsh.exit(withError: code == .success ? nil : ExitCode(code.rawValue))
    }

    /// fluxsh's help: the default mode's (usage, options, arguments), the subcommands, then EXAMPLES,
    /// ENVIRONMENT and FILES; and exit 0.
    static func printHelp() -> Never {
        writeOut(helpText() + "\n\n" + FluxshManual.helpSections + "\n")
        Fluxsh.exit()
    }

    /// The default mode's help with the subcommands' list (from fluxsh's own help) after its options.
    static func helpText(columns: Int? = nil) -> String {
        let own = helpMessage(for: Start.self, columns: columns)
        let root = helpMessage(columns: columns)
        guard let subcommands = root.range(of: "\nSUBCOMMANDS:\n") else { return own }
        return own + root[subcommands.lowerBound...]
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

/// The options every `fluxsh` mode takes. `Level` is the command holding them: a type for each, so that
/// ArgumentParser decodes each level's words (see ``Fluxsh``).
struct ShellOptions<Level>: ParsableArguments {
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

    @OptionGroup var session: SessionOptions<Level>

    /// These options with those typed before the subcommand's name: a flag given at either place, the
    /// plugins of both (the outer first), the session named here or else there.
    ///
    /// - Throws: `ValidationError` for options that contradict each other across the two places
    ///   (`fluxsh --session a run --no-session …`).
    func merged<Outer>(after outer: ShellOptions<Outer>) throws -> ShellOptions<Level> {
        var merged = self
        merged.plugins = outer.plugins + plugins
        merged.noColor = outer.noColor || noColor
        merged.noFeatures = outer.noFeatures || noFeatures
        merged.clean = outer.clean || clean
        merged.session.name = session.name ?? outer.session.name
        merged.session.fresh = outer.session.fresh || session.fresh
        merged.session.none = outer.session.none || session.none
        try merged.session.validate()
        return merged
    }

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
        static let configuration = CommandConfiguration(
            abstract: "Run scripts in one shell; stop with a non-zero status at the first error."
        )

        @ParentCommand var fluxsh: Fluxsh

        @OptionGroup var ownOptions: ShellOptions<Run>

        /// The options, with those typed before `run`.
        var options: ShellOptions<Run> { get throws { try ownOptions.merged(after: fluxsh.options) } }

        @Argument(help: ArgumentHelp("The Lua scripts to run, in order.", valueName: "file"))
        var files: [String]

        @Option(help: ArgumentHelp("The seconds the run waits for live effects (timers, processes, watches) once the scripts ran; by default as long as any is live.", valueName: "seconds"))
        var timeout: Double?

        func validate() throws {
            _ = try options
            guard !files.isEmpty else { throw ValidationError("name at least one script to run") }
            if let timeout { guard timeout.isFinite, timeout >= 0 else { throw ValidationError("--timeout must be 0 seconds or more") } }
        }

        func run() throws {
            let options = try options
            var configuration = options.configuration
            configuration.session = try options.session.choice(defaultName: nil)
            try SessionChoice.refuseIfOpenElsewhere(configuration.session)
            var runner = ScriptRunner(configuration: configuration, write: writeOut, writeError: writeErr)
            runner.timeout = timeout
            let status = runner.run(files)
            if status != 0 { throw ExitCode(status) }
        }
    }

    /// `fluxsh test [DIR|FILE…]`.
    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run each script in a fresh shell; print ok or FAIL per script, then the counts."
        )

        @ParentCommand var fluxsh: Fluxsh

        @OptionGroup var ownOptions: ShellOptions<Test>

        /// The options, with those typed before `test`.
        var options: ShellOptions<Test> { get throws { try ownOptions.merged(after: fluxsh.options) } }

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
            let options = try options
            if options.session.name != nil || options.session.fresh {
                throw ValidationError("test runs each script in a fresh shell: --session and --fresh do not apply")
            }
        }

        func run() throws {
            let options = try options
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
