import Foundation

extension Shell {
    /// `:help`: every command, from the table; `:help NAME` one command; `:help flux…` the `flux` module.
    func help(_ name: String?) throws {
        if let name {
            if name.hasPrefix("flux.") || name == "flux" { return try helpFlux(name) }
            guard let command = Self.command(named: name) else {
                throw ShellCommandError.failed("unknown command ':\(name.hasPrefix(":") ? String(name.dropFirst()) : name)' (try :help)")
            }
            print("\(command.usage)\n  \(command.summary)")
            return
        }
        let width = Self.commands.map(\.usage.count).max() ?? 0
        let lineWidth = host.renderOptions.width
        var lines = FluxReference.wrap("Type Lua (an expression prints its value; `=` at the start means return) or a command:", width: lineWidth)
        // A summary too long for the line goes on under itself, so that the list fits the terminal.
        let room = max(20, host.renderOptions.width - width - 4)
        for command in Self.commands {
            let summary = FluxReference.wrap(command.summary, width: room)
            lines.append("  " + command.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + (summary.first ?? ""))
            lines += summary.dropFirst().map { String(repeating: " ", count: width + 4) + $0 }
        }
        lines += FluxReference.wrap("Tab completes commands, names and Lua fields; Ctrl-C stops a running script; Ctrl-D leaves. :help flux lists the functions of the flux module.", width: lineWidth)
        print(lines.joined(separator: "\n"))
    }

    /// `:help flux.NAME`, or `:help flux` for the list of functions.
    func helpFlux(_ name: String) throws {
        if name == "flux" || name == "flux." {
            // Signatures in a column of their own; a longer one puts its summary on the lines below.
            let column = 28, room = max(20, host.renderOptions.width - column - 4)
            var lines: [String] = []
            for function in FluxReference.functions {
                let summary = FluxReference.wrap(function.firstClause, width: room)
                let indent = String(repeating: " ", count: column + 4)
                if function.signature.count <= column {
                    lines.append("  " + function.signature.padding(toLength: column + 2, withPad: " ", startingAt: 0) + (summary.first ?? ""))
                    lines += summary.dropFirst().map { indent + $0 }
                } else {
                    lines.append("  " + function.signature)
                    lines += summary.map { indent + $0 }
                }
            }
            return print((lines + [":help flux.NAME shows one with an example."]).joined(separator: "\n"))
        }
        guard let function = FluxReference.function(named: name) else {
            throw ShellCommandError.failed("flux has no function '\(name.dropFirst(5))' (:help flux lists them)")
        }
        print(FluxReference.help(function, width: host.renderOptions.width))
    }
}
