import ArgumentParser
import FluxSession

/// `--session NAME`, `--fresh` and `--no-session`: which session a `fluxsh` mode keeps.
///
/// The interactive shell keeps the session `default` unless told otherwise; `run`, `test` and piped
/// input keep none unless `--session` names one, so that scripts stay reproducible.
///
/// `Level` is the command holding them (see ``ShellOptions``).
struct SessionOptions<Level>: ParsableArguments {
    @Option(name: .customLong("session"), help: ArgumentHelp(
        "Keep the stores, the journal and the undo history in the session NAME across restarts.", valueName: "name"))
    var name: String?

    @Flag(name: .customLong("fresh"), help: "Start the session empty; its old database is kept beside it.")
    var fresh = false

    @Flag(name: .customLong("no-session"), help: "Keep nothing: not even the interactive shell's default session.")
    var none = false

    func validate() throws {
        if none, name != nil { throw ValidationError("--session and --no-session cannot be given together") }
        if none, fresh { throw ValidationError("--fresh starts a session afresh; --no-session keeps none") }
    }

    /// The session to keep: the one named, else `defaultName` (nil: none).
    ///
    /// - Throws: `ValidationError` for `--fresh` with no session to start afresh.
    func choice(defaultName: String?) throws -> SessionChoice? {
        guard !none, let name = name ?? defaultName else {
            if fresh { throw ValidationError("--fresh needs a session: give --session NAME") }
            return nil
        }
        return SessionChoice(name: name, fresh: fresh)
    }
}

extension SessionChoice {
    /// Refuses a session another `fluxsh` holds open: exit status 2 with the message, before anything
    /// runs (a shell that went on would keep nothing of what it is told).
    static func refuseIfOpenElsewhere(_ choice: SessionChoice?) throws {
        guard let choice, Session.isOpenElsewhere(name: choice.name) else { return }
        writeErr("fluxsh: session '\(choice.name)' is open in another fluxsh "
            + "(give this one another --session NAME, or --no-session to keep nothing)\n")
        throw ExitCode(2)
    }
}
