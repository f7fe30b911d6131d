import ArgumentParser
import Foundation

/// The parts of `fluxsh`'s manual that ArgumentParser does not make: EXAMPLES, ENVIRONMENT and FILES,
/// shown at the end of `fluxsh --help` and in the man page `fluxsh --man` prints (``manualPage``).
enum FluxshManual {
    /// The command lines, without the program name, and what each does.
    static let examples: [(command: String, meaning: String)] = [
        ("", "the prompt, with the shipped features, in the session 'default'"),
        ("--session game", "the prompt, in the session 'game'"),
        ("--no-session --plugins plugins", "keep nothing; load every plugin in ./plugins"),
        ("--plugins plugins/todo/init.lua", "load one plugin by its file"),
        ("run setup.lua demo.lua", "run scripts in one shell; stop at the first error"),
        ("test examples", "each script in a fresh shell: ok or FAIL, then the counts"),
        ("game.lua 3 fast", "run a script with arguments, as lua does"),
        ("-e 'print(flux.stores())'", "run a statement"),
        ("--man > fluxsh.1", "write this manual as a man page (man -l fluxsh.1)"),
    ]

    /// The environment variables fluxsh reads.
    static let environment: [(name: String, meaning: String)] = [
        ("XDG_STATE_HOME", "where sessions ($XDG_STATE_HOME/fluxsh/sessions/NAME.sqlite) and the line history "
            + "($XDG_STATE_HOME/fluxsh/history) live; ~/.local/state when unset"),
        ("NO_COLOR", "when set and not empty, tables print without colour (as --no-color)"),
        ("LUA_INIT", "Lua run first, as the lua command runs it (@FILE runs a file); LUA_INIT_5_4 takes precedence"),
        ("LUA_PATH, LUA_CPATH", "where require looks for modules (LUA_PATH_5_4, LUA_CPATH_5_4 take precedence)"),
        ("COLUMNS", "the width tables and devtools lines fit, when a positive number (else the terminal's width, else 80)"),
        ("FLUXSH_JOURNAL_LIMIT", "the most journal entries a session keeps, when a positive number (else 500000)"),
    ]

    /// The files fluxsh reads and writes.
    static let files: [(path: String, meaning: String)] = [
        ("~/.local/state/fluxsh/sessions/NAME.sqlite", "a session: every store's state, the journal and the undo history; locked (flock) while a fluxsh has it open"),
        ("~/.local/state/fluxsh/history", "the prompt's line history"),
        ("PLUGIN/init.lua", "a folder plugin's entry; its other modules are PLUGIN/NAME.lua"),
    ]

    /// EXAMPLES, ENVIRONMENT and FILES as `--help` shows them, after the options.
    static var helpSections: String {
        func section(_ title: String, _ rows: [(String, String)]) -> String {
            // As ArgumentParser lays out the options: a column of names, the text beside it within 80.
            let column = min(34, rows.map(\.0.count).max() ?? 0)
            let indent = String(repeating: " ", count: column + 4)
            return title + ":\n" + rows.map { left, right in
                let text = FluxReference.wrap(right, width: 80 - indent.count)
                let rest = text.dropFirst().map { "\n" + indent + $0 }.joined()
                return left.count > column
                    ? "  " + left + "\n" + indent + (text.first ?? "") + rest
                    : "  " + left + String(repeating: " ", count: column + 2 - left.count) + (text.first ?? "") + rest
            }.joined(separator: "\n")
        }
        return [
            section("EXAMPLES", examples.map { ("fluxsh" + ($0.command.isEmpty ? "" : " " + $0.command), $0.meaning) }),
            section("ENVIRONMENT", environment.map { ($0.name, $0.meaning) }),
            section("FILES", files.map { ($0.path, $0.meaning) }),
        ].joined(separator: "\n\n")
    }

    /// The man page `fluxsh(1)` in roff (man's `-man` macros): the synopsis, the description, every
    /// option and subcommand as ArgumentParser describes them, then the sections above.
    static func manualPage(date: String = "2026") -> String {
        var lines = [
            ".TH FLUXSH 1 \"\(date)\" \"fluxsh \(Fluxsh.version)\" \"User Commands\"",
            ".SH NAME",
            "fluxsh \\- " + roff(Fluxsh.configuration.abstract),
            ".SH SYNOPSIS",
        ]
        for usage in Fluxsh.configuration.usage?.split(separator: "\n") ?? [] {
            lines += [".nf", roff(usage.trimmingCharacters(in: .whitespaces)), ".fi", ".br"]
        }
        lines += [".SH DESCRIPTION", roff(Fluxsh.configuration.discussion.components(separatedBy: "\n\nEXAMPLES").first ?? "")]
        // The default mode's options are fluxsh's (Fluxsh.Start, which the help shows as fluxsh's).
        lines += [".SH OPTIONS"] + optionLines(Fluxsh.helpMessage(for: Fluxsh.Start.self, columns: 200))
        for subcommand in Fluxsh.configuration.subcommands where subcommand.configuration.shouldDisplay {
            lines += [".SH \"fluxsh \(subcommand._commandName)\"", roff(subcommand.configuration.abstract)]
            lines += optionLines(Fluxsh.helpMessage(for: subcommand, columns: 200))
        }
        lines += [".SH EXAMPLES"]
        for example in examples {
            lines += [".TP", ".B fluxsh" + (example.command.isEmpty ? "" : " " + roff(example.command)), roff(example.meaning)]
        }
        lines += [".SH ENVIRONMENT"]
        for variable in environment { lines += [".TP", ".B " + roff(variable.name), roff(variable.meaning)] }
        lines += [".SH FILES"]
        for file in files { lines += [".TP", ".I " + roff(file.path), roff(file.meaning)] }
        lines += [".SH SEE ALSO", "lua(1); docs/ in the FluxShell repository; :help at the prompt"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The ARGUMENTS and OPTIONS of an ArgumentParser help text, one `.TP` entry each.
    private static func optionLines(_ help: String) -> [String] {
        var lines: [String] = []
        var inOptions = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "OPTIONS:" || line == "ARGUMENTS:" { inOptions = true; continue }
            if line.isEmpty || !line.hasPrefix(" ") { inOptions = false; continue }
            guard inOptions else { continue }
            let text = line.trimmingCharacters(in: .whitespaces)
            // "  --plugins <path>        Load …": the name, then two blanks or more, then the help.
            if line.hasPrefix("  "), !line.hasPrefix("    "), let gap = text.range(of: "  ") {
                lines += [".TP", ".B " + roff(String(text[..<gap.lowerBound])),
                          roff(text[gap.upperBound...].trimmingCharacters(in: .whitespaces))]
            } else if line.hasPrefix("  "), !line.hasPrefix("    ") {
                lines += [".TP", ".B " + roff(text)]
            } else {
                lines.append(roff(text))
            }
        }
        return lines
    }

    /// `text` safe in roff: backslashes doubled, a leading dot or quote escaped.
    static func roff(_ text: String) -> String {
        var text = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "-", with: "\\-")
        if text.hasPrefix(".") || text.hasPrefix("'") { text = "\\&" + text }
        return text
    }
}
