import ArgumentParser

extension Fluxsh {
    /// `fluxsh help [SUBCOMMAND]`, as the help's last line offers: the subcommand's help, or fluxsh's
    /// (``Fluxsh/printHelp()``, with its EXAMPLES, ENVIRONMENT and FILES); an unknown name is a usage error
    /// listing the names (ArgumentParser's own `help` would show fluxsh's help for it, and exit 0).
    struct Help: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "help",
            abstract: "Show the help of fluxsh or of one of its subcommands.",
            shouldDisplay: false
        )

        @Argument(help: ArgumentHelp("The subcommand.", valueName: "subcommand"))
        var names: [String] = []

        func run() throws {
            let subcommands = Fluxsh.configuration.subcommands.filter { $0.configuration.shouldDisplay }
            if names.isEmpty { Fluxsh.printHelp() }
            if names.count == 1, let subcommand = subcommands.first(where: { $0._commandName == names[0] }) {
                throw CleanExit.helpRequest(subcommand)
            }
            let known = subcommands.map { $0._commandName }.joined(separator: ", ")
            throw ValidationError("help: no subcommand '\(names.joined(separator: " "))' (subcommands: \(known))")
        }
    }
}
