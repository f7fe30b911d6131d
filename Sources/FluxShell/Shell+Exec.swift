import FluxLua

/// `flux.exec(":command …")`: a `:` command run from Lua, as a script or a test runs what a person types
/// (`:load`, a plugin's command, `:health`): what it prints goes where the prompt's output goes, and its
/// error is a Lua error with the message it would show.
extension Shell {
    func installExec() {
        host.addFunction(named: "exec") { [weak self] arguments in
            let lua = arguments.stack
            try arguments.expect(atMost: 1)
            guard let self else { throw ShellCommandError.failed("the shell is gone") }
            guard lua.type(at: 1) == .string, let line = lua.string(at: 1) else {
                throw arguments.error(1, "a ':' command line expected, got \(lua.type(at: 1).name)")
            }
            try exec(line)
            return 0
        }
    }

    /// Runs the `:` command `line`, throwing its error.
    func exec(_ line: String) throws {
        let trimmed = line.drop(while: \.isBlank)
        guard trimmed.hasPrefix(":") else { throw ShellCommandError.failed("a ':' command line expected, got '\(line)'") }
        let body = trimmed.dropFirst()
        let name = String(body.prefix { !$0.isBlank })
        let text = String(body.dropFirst(name.count))
        if let command = Self.commands.first(where: { $0.name == name }) {
            try command.run(self, CommandArguments(text, for: command))
        } else if let command = host.pluginCommand(named: name) {
            if let result = try host.run(command, text: text) { print(result) }
        } else {
            throw ShellCommandError.failed(name.isEmpty ? "a command name must follow ':' (try :help)" : "unknown command ':\(name)' (try :help)")
        }
    }
}
