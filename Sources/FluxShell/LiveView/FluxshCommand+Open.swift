import ArgumentParser

extension Fluxsh {
    /// `fluxsh open VIEW…`: a shell with the views full-screen, ended when the user leaves them.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show views full-screen (as :open does) and end when they are left with q."
        )

        @ParentCommand var fluxsh: Fluxsh

        @OptionGroup var ownOptions: ShellOptions<Open>

        @Argument(help: ArgumentHelp("The views to show, stacked top to bottom.", valueName: "view"))
        var views: [String]

        func validate() throws {
            _ = try ownOptions.merged(after: fluxsh.options)
            guard !views.isEmpty else { throw ValidationError("name at least one view to open (fluxsh -e ':views' lists them)") }
        }

        func run() throws {
            let options = try ownOptions.merged(after: fluxsh.options)
            var configuration = options.configuration
            configuration.session = try options.session.choice(defaultName: nil)
            var reported = false
            let shell = Shell(configuration: configuration, write: writeOut) { text in
                reported = true
                writeErr(text)
            }
            guard shell.runInit(), !reported else { throw ExitCode(1) }
            do {
                try shell.open(views)
            } catch {
                shell.reportError(error)
                throw ExitCode(1)
            }
        }
    }
}
