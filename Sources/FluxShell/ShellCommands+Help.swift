import Flux
import Foundation

extension Shell {
    /// `:help`: every command, from the table; `:help NAME` one command; `:help flux…` the `flux` module.
    func help(_ name: String?) throws {
        if let name {
            if name.hasPrefix("flux.") || name == "flux" { return try helpFlux(name) }
            guard let command = Self.command(named: name) else {
                if let command = host.pluginCommand(named: name.hasPrefix(":") ? String(name.dropFirst()) : name) {
                    return print("\(command.usageLine)\n  \(command.summary)\n  (defined by \(command.owner))")
                }
                throw ShellCommandError.failed(Self.unknownCommand(name.hasPrefix(":") ? String(name.dropFirst()) : name))
            }
            print("\(command.usage)\n  \(command.summary)")
            return
        }
        let lineWidth = host.renderOptions.width
        var lines = FluxReference.wrap("Type Lua (an expression prints its value; `=` at the start means return) or a command:", width: lineWidth)
        lines += Self.listing(Self.commands.map { ($0.usage, $0.summary) }, column: Self.commands.map(\.usage.count).max() ?? 0,
                              width: lineWidth)
        let plugin = host.pluginCommands
        if !plugin.isEmpty {
            lines.append("Commands of plugins:")
            lines += Self.listing(plugin.map { ($0.usageLine, $0.summary) }, column: Self.commands.map(\.usage.count).max() ?? 0,
                                  width: lineWidth)
        }
        lines += FluxReference.wrap("Tab completes commands, names and Lua fields; Ctrl-C stops a running script; Ctrl-D leaves. :help flux lists the functions of the flux module.", width: lineWidth)
        print(lines.joined(separator: "\n"))
    }

    /// The narrowest column a summary beside the names may have; a terminal with less room puts each
    /// summary under its name.
    static let summaryRoom = 20

    /// A listing of names and their summaries that fits `width`: the names in a column `column` wide, each
    /// summary beside its name, wrapping under itself; a longer name, or a terminal too narrow for two
    /// columns, puts its summary on the lines below it, indented.
    static func listing(_ rows: [(name: String, summary: String)], column: Int, width: Int) -> [String] {
        let room = width - column - 4
        let below = room >= summaryRoom ? column + 4 : 6
        let indent = String(repeating: " ", count: below)
        var lines: [String] = []
        for (name, summary) in rows {
            if room >= summaryRoom, name.count <= column {
                let wrapped = FluxReference.wrap(summary, width: room)
                lines.append("  " + name.padding(toLength: column + 2, withPad: " ", startingAt: 0) + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { indent + $0 }
            } else {
                lines.append("  " + name)
                lines += FluxReference.wrap(summary, width: max(summaryRoom, width - below)).map { indent + $0 }
            }
        }
        return lines
    }

    /// `:help flux.NAME`, or `:help flux` for the list of functions.
    func helpFlux(_ name: String) throws {
        if name == "flux" || name == "flux." {
            let lines = Self.listing(FluxReference.functions.map { ($0.signature, $0.firstClause) }, column: 28,
                                     width: host.renderOptions.width)
            let footer = FluxReference.wrap(":help flux.NAME shows one with an example.", width: host.renderOptions.width)
            return print((lines + footer).joined(separator: "\n"))
        }
        guard let function = FluxReference.function(named: name) else {
            let hint = NameSuggestion.didYouMean(String(name.dropFirst(5)), in: FluxReference.functions.map(\.name)).map { ": " + $0 } ?? ""
            throw ShellCommandError.failed("flux has no function '\(name.dropFirst(5))'\(hint) (:help flux lists them)")
        }
        print(FluxReference.help(function, width: host.renderOptions.width))
    }
}
