import Flux
import FluxSession
import Foundation

/// `:outbox` — each outbox with its pending, in-flight and failed entries — and `:outbox retry|pause|resume
/// NAME`, `:outbox drop NAME ID`; and the session's storage of outbox entries.
extension Shell {
    /// The session keeps the outboxes' entries from now on: those it kept (a restart) are sent.
    func keepOutboxes(in session: Session) {
        do {
            try host.outboxes.use(session.outboxStorage())
        } catch {
            reportMessage("\(error); outbox entries are kept in memory only")
        }
    }

    func runOutbox(_ arguments: CommandArguments) throws {
        let words = arguments.words
        guard let verb = words.first else { return listOutboxes() }
        let verbs = ["retry", "pause", "resume", "drop"]
        guard verbs.contains(verb) else {
            let hint = NameSuggestion.didYouMean(verb, in: verbs).map { ": " + $0 } ?? ""
            throw ShellCommandError.failed("unknown :outbox subcommand '\(verb)'\(hint) (known: \(verbs.joined(separator: ", ")))")
        }
        guard words.count == (verb == "drop" ? 3 : 2) else { throw arguments.usage }
        let outbox = try outbox(named: words[1])
        switch verb {
        case "retry":
            if outbox.isPaused { throw ShellCommandError.failed("outbox '\(outbox.name)' is paused: :outbox resume \(outbox.name) first") }
            if outbox.queue.isEmpty { return print("outbox '\(outbox.name)' has nothing to send") }
            if !outbox.retryNow() { return print("outbox '\(outbox.name)': entry \(outbox.inFlight ?? 0) is in flight; the next goes once it is answered") }
            print("outbox '\(outbox.name)': sending entry \(outbox.queue[0].id) now")
        case "pause":
            outbox.pause()
            print("outbox '\(outbox.name)' paused (\(outbox.queue.count) pending)")
        case "resume":
            outbox.resume()
            print("outbox '\(outbox.name)' resumed (\(outbox.queue.count) pending)")
        default:
            guard let id = Int(words[2]), let entry = outbox.queue.first(where: { $0.id == id }) else {
                let ids = outbox.queue.prefix(10).map { String($0.id) }.joined(separator: ", ")
                throw ShellCommandError.failed("outbox '\(outbox.name)' has no entry \(words[2]) (pending: \(ids.isEmpty ? "none" : ids))")
            }
            let question = "\(outbox.name) \(id)"
            if isatty(STDIN_FILENO) == 1, outboxDropAsked != question {
                outboxDropAsked = question
                return print("drop entry \(id) (\(entry.action)) of '\(outbox.name)'? It will never be sent. Type :outbox drop \(outbox.name) \(id) again to drop it")
            }
            outboxDropAsked = nil
            outbox.drop(id)
            print("outbox '\(outbox.name)': entry \(id) (\(entry.action)) dropped, never sent")
        }
    }

    private func outbox(named name: String) throws -> Outbox {
        let center = host.outboxes
        if let outbox = center.outbox(named: name) { return outbox }
        let names = center.outboxes.map(\.name)
        let hint = NameSuggestion.didYouMean(name, in: names).map { ": " + $0 } ?? ""
        throw ShellCommandError.failed("no outbox '\(name)'\(hint) (outboxes: \(names.isEmpty ? "none; flux.outbox{…} declares one" : names.joined(separator: ", ")))")
    }

    /// Each outbox: its counts and wait, then its entries (the first 20), with attempts and last error.
    private func listOutboxes() {
        let center = host.outboxes
        guard !center.outboxes.isEmpty else { return print("no outboxes") }
        let now = host.effects.now
        var lines: [String] = []
        for outbox in center.outboxes {
            let failed = outbox.queue.filter { $0.lastError != nil }.count
            var heading = "\(outbox.name): \(outbox.queue.count) pending"
            if let id = outbox.inFlight { heading += ", entry \(id) in flight" }
            heading += ", \(failed) failed, \(outbox.sent) sent, \(outbox.rejected) rejected"
            if outbox.isPaused { heading += "; paused" }
            if let next = outbox.nextTry { heading += "; next try in " + Self.duration(max(0, next - now)) }
            lines.append(heading)
            guard !outbox.queue.isEmpty else { continue }
            let shown = outbox.queue.prefix(20)
            let rows = [["id", "action", "attempts", "last error"]] + shown.map { entry in
                [String(entry.id), entry.action, String(entry.attempts), entry.lastError ?? ""]
            }
            let widths = (0 ..< 3).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = (0 ..< 3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) } + [row[3]]
                lines.append("  " + cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
            if outbox.queue.count > shown.count { lines.append("  … \(outbox.queue.count - shown.count) more") }
        }
        print(lines.joined(separator: "\n"))
    }
}
