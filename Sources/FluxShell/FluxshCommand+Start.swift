import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Fluxsh {
    /// `fluxsh [OPTIONS] [SCRIPT [ARGS…]]`: the default subcommand, run when the first plain word names
    /// no other. The prompt, or modules, statements and a script as `lua` runs them; everything after the
    /// script is the script's (`fluxsh game.lua --help` hands it `--help`). A script named like a
    /// subcommand runs as `fluxsh ./test` or `fluxsh -- test`.
    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "shell",
            abstract: Fluxsh.configuration.abstract,
            usage: Fluxsh.configuration.usage,
            discussion: Fluxsh.configuration.discussion,
            // Named only to be routed to: fluxsh's help is this one's, with the subcommands after it.
            shouldDisplay: false
        )

        @ParentCommand var fluxsh: Fluxsh

        @OptionGroup var ownOptions: ShellOptions<Start>

        @OptionGroup var lua: LuaCommandLine

        @Flag(name: .customLong("man"), help: "Print the manual page fluxsh(1) in roff (man -l FILE reads it).")
        var man = false

        func validate() throws {
            _ = try ownOptions.merged(after: fluxsh.options)
        }

        /// The REPL, or a script and statements as `lua` runs them.
        func run() throws {
            if man { return writeOut(FluxshManual.manualPage()) }
            let options = try ownOptions.merged(after: fluxsh.options)
            let editor = LineEditor()
            var configuration = options.configuration
            configuration.userConfig = options.clean ? nil : UserConfig.located()
            // A session is kept by default only for a person at the prompt, not for a script run as `lua` runs it.
            let prompts = editor.isInteractive && (!lua.runsCode || lua.wantsPrompt)
            configuration.session = try options.session.choice(defaultName: prompts ? SessionChoice.defaultName : nil)
            try SessionChoice.refuseIfOpenElsewhere(configuration.session)
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
            if editor.isInteractive { (isatty(STDOUT_FILENO) == 1 ? writeOut : writeErr)(Fluxsh.banner(for: shell)) }
            if !lua.runsCode { shell.runInit() }
            let status = REPL(shell: shell, editor: editor).run()
            shell.finish()
            if status != 0 { throw ExitCode(status) }
        }
    }
}
