import Foundation

/// The text after a command's name, split into words, with checks of how many there may be: each
/// failed check throws the usage of the command they were given to.
struct CommandArguments {
    /// The command they are for.
    let command: ShellCommand
    /// The text after the name, as typed.
    let text: String
    /// The words of `text`, split at blanks.
    let words: [String]

    init(_ text: String, for command: ShellCommand) {
        self.command = command
        self.text = text
        self.words = text.split(whereSeparator: \.isBlank).map(String.init)
    }

    /// The error showing the command's usage.
    var usage: ShellCommandError { .usage(command) }

    /// No argument, else the usage.
    func none() throws {
        guard words.isEmpty else { throw usage }
    }

    /// Exactly one word.
    func one() throws -> String {
        guard words.count == 1 else { throw usage }
        return words[0]
    }

    /// The whole text, trimmed, as one argument, or nil when there is none: a plugin's name is its
    /// file's, which may hold blanks.
    func whole() -> String? {
        let text = text.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// At most one word.
    func optional() throws -> String? {
        guard words.count <= 1 else { throw usage }
        return words.first
    }

    /// Between `counts.lowerBound` and `counts.upperBound` words.
    func words(_ counts: ClosedRange<Int>) throws -> [String] {
        guard counts.contains(words.count) else { throw usage }
        return words
    }

    /// The one word, as a whole number no less than `minimum`.
    func number(from minimum: Int) throws -> Int {
        guard let number = Int(try one()), number >= minimum else { throw usage }
        return number
    }

    /// The whole text as one path (it may hold spaces), not empty.
    func path() throws -> String {
        let path = text.trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else { throw usage }
        return path.expandingTilde
    }

    /// The first word and the text after it, trimmed: `:dispatch` takes a name and a Lua expression.
    func head() throws -> (word: String, rest: String) {
        guard let word = words.first else { throw usage }
        let rest = text.drop(while: \.isBlank).dropFirst(word.count).trimmingCharacters(in: .whitespaces)
        return (word, rest)
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
