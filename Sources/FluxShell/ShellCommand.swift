import FluxLua
import Foundation

/// A `:` command of the shell: its name, how it is used, what Tab offers for its arguments, and what
/// it does.
struct ShellCommand: Sendable {
    /// What an argument names, for Tab completion.
    enum Argument: Sendable {
        case store, action, view, watchedView, plugin, file
    }

    /// The name without its colon: `dispatch`.
    let name: String
    /// The arguments as `:help` shows them: `<action> [lua-table]`.
    let arguments: String
    /// One line on what it does.
    let summary: String
    /// What each argument position completes to.
    let completes: [Argument]
    /// Runs it with the text after the name; throws ``ShellCommandError``s for bad arguments.
    let run: @Sendable (Shell, String) throws -> Void

    /// `:name arguments`, as usage lines show it.
    var usage: String { arguments.isEmpty ? ":\(name)" : ":\(name) \(arguments)" }
}

/// Why a command did not run.
enum ShellCommandError: Error, CustomStringConvertible {
    /// The arguments do not fit; prints the usage.
    case usage(ShellCommand)
    /// A clear one-line reason.
    case failed(String)

    var description: String {
        switch self {
        case let .usage(command): "usage: \(command.usage)  — \(command.summary)"
        case let .failed(message): message
        }
    }
}

extension Character {
    /// A space or a tab: what separates a command's name and words (a line holds no newline).
    var isBlank: Bool { self == " " || self == "\t" }
}

extension String {
    /// The path with a leading `~` (`$HOME`) or `~user` replaced by that home folder, as a shell does.
    var expandingTilde: String {
        guard hasPrefix("~") else { return self }
        if self == "~" || hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty {
            return home + dropFirst()
        }
        return (self as NSString).expandingTildeInPath
    }
}

/// The words of a command's argument text, with a check of how many there may be.
struct CommandArguments {
    let command: ShellCommand
    let text: String
    let words: [String]

    init(_ text: String, for command: ShellCommand) {
        self.command = command
        self.text = text
        self.words = text.split(whereSeparator: \.isBlank).map(String.init)
    }

    /// No argument, else the usage.
    func none() throws {
        guard words.isEmpty else { throw ShellCommandError.usage(command) }
    }

    /// Exactly one word.
    func one() throws -> String {
        guard words.count == 1 else { throw ShellCommandError.usage(command) }
        return words[0]
    }

    /// At most one word.
    func optional() throws -> String? {
        guard words.count <= 1 else { throw ShellCommandError.usage(command) }
        return words.first
    }

    /// The whole text as one path (it may hold spaces), not empty.
    func path() throws -> String {
        let path = text.trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else { throw ShellCommandError.usage(command) }
        return path.expandingTilde
    }
}

extension Shell {
    /// Runs a `:` command line.
    ///
    /// - Returns: false when it failed; the error or the usage has been written.
    func runCommand(_ line: String) -> Bool {
        let body = line.dropFirst() // the colon
        let name = String(body.prefix { !$0.isBlank })
        let rest = String(body.dropFirst(name.count))
        guard let command = Self.commands.first(where: { $0.name == name }) else {
            reportMessage(name.isEmpty ? "a command name must follow ':' (try :help)"
                                       : "unknown command ':\(name)' (try :help)")
            return false
        }
        followTerminalWidth()
        defer { acknowledge() }
        do {
            try command.run(self, rest)
            return true
        } catch let error as ShellCommandError {
            reportMessage(error.description)
        } catch let error as LuaError {
            // A command's own call into Lua: its traceback says nothing the message doesn't.
            reportMessage(error.message)
        } catch {
            reportError(error)
        }
        return false
    }
}
