import Flux
import FluxLua
import FluxTable

/// How the devtools print actions and what they changed, at the terminal's width and in its
/// character set.
struct ActionText {
    let width: Int
    let unicode: Bool

    init(_ options: RenderOptions) {
        width = options.width
        unicode = options.unicode
    }

    /// `ticTacToe.placeToken {index = 4}`; an action without payload fields is its name alone.
    func action(_ action: any Action, limit: Int? = nil) -> String {
        guard let payload = try? StateValue(encoding: action) else { return action.name }
        // No fields: a Swift action without any, or a script's empty table (read back from a log as a list).
        if payload == .object([]) || payload == .array([]) { return action.name }
        // The payload takes what the name leaves, down to a few characters of it on a narrow terminal.
        let room = max(6, (limit ?? width) - action.name.count - 1)
        return action.name + " " + payload.text(limit: room, unicode: unicode)
    }

    /// The changed paths of every diff, indented: `  ticTacToe.board[5]: nil → "X"`.
    func changes(_ diffs: [StateDiff], maximum: Int = 20) -> [String] {
        let lines = diffs.flatMap { $0.lines(width: width - 2, maximum: maximum, unicode: unicode) }
        return lines.isEmpty ? ["  (no state changed)"] : lines.map { "  " + $0 }
    }

    /// A `:log` entry: the action, then what it changed, or why it failed.
    func entry(_ report: ActionMonitor.Report) -> String {
        var lines = [action(report.action)]
        if let error = report.error {
            // The first line only: a handler's traceback is for the error the caller sees.
            let message = FluxHost.describe(error).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            lines.append("  failed: " + message)
        } else {
            lines += changes(report.diffs, maximum: 10)
        }
        return lines.joined(separator: "\n")
    }
}
