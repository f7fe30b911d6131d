/// A `:` command of the shell, whole: its name, how it is used, what Tab offers for its arguments,
/// and what it does with them.
///
/// The shell splits a command line into the name and a ``CommandArguments`` bound to the command, so
/// that a command checks its words and reports its own usage without looking itself up.
struct ShellCommand: Sendable {
    /// What an argument names, for Tab completion.
    enum Argument: Sendable, Equatable {
        case store, action, view, watchedView, plugin, file
        /// A Lua table of the fields of the action the argument before names.
        case payload
        /// What `:help` explains: a command's name, `flux` or `flux.NAME`.
        case topic
        /// One of these words: `on` and `off` for `:log`.
        case word([String])
    }

    /// The name without its colon: `dispatch`.
    let name: String
    /// The arguments as `:help` shows them: `<action> [lua-table]`.
    let arguments: String
    /// One line on what it does.
    let summary: String
    /// What each argument position completes to.
    let completes: [Argument]
    /// Runs it with its arguments; throws ``ShellCommandError``s for bad ones.
    let run: @Sendable (Shell, CommandArguments) throws -> Void

    init(_ name: String, _ arguments: String, _ summary: String, completes: [Argument] = [],
         run: @escaping @Sendable (Shell, CommandArguments) throws -> Void) {
        self.name = name
        self.arguments = arguments
        self.summary = summary
        self.completes = completes
        self.run = run
    }

    /// `:name arguments`, as usage lines show it.
    var usage: String { arguments.isEmpty ? ":\(name)" : ":\(name) \(arguments)" }
}
