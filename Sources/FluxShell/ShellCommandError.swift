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
