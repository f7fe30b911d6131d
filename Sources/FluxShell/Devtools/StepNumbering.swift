import Flux
import FluxSession
import FluxTable
import Foundation

/// One numbering a person cannot confuse: an undo step of `:history` is `#3`, an entry of the
/// session's journal (`:journal`) is `@12`. `:goto` and `:show` take either mark; a bare number keeps
/// its old meaning (`:goto 12`: the journal's entry in a session, the undo step without one) and the
/// answer says which it was.
enum StepReference: Equatable {
    /// An undo step of `:history`: `#N`.
    case step(Int)
    /// An entry of the session's journal: `@N`.
    case entry(Int)
    /// A number without a mark.
    case bare(Int)

    /// `#N`, `@N` or `N` (N from 0); nil for anything else.
    init?(_ word: String) {
        let mark = word.first.flatMap { $0 == "#" || $0 == "@" ? $0 : nil }
        let digits = mark == nil ? Substring(word) : word.dropFirst()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits) else { return nil }
        switch mark {
        case "#": self = .step(number)
        case "@": self = .entry(number)
        default: self = .bare(number)
        }
    }

    /// How an undo step is written.
    static func stepMark(_ number: Int) -> String { "#\(number)" }
    /// How a journal entry is written.
    static func entryMark(_ number: Int) -> String { "@\(number)" }
}

extension Shell {
    /// `:journal [count|all]`: the session's journal, each entry as the command that would do it
    /// again, with its time: `@12  06:30:12  :dispatch ticTacToe.placeToken {index = 4}`.
    func listJournalEntries(_ count: String?) throws {
        var last: Int?
        switch count {
        case nil, "all"?: last = count == nil ? 20 : nil
        case let count?:
            guard let number = Int(count), number > 0 else {
                throw ShellCommandError.failed("'\(count)' is not a count: :journal 20 lists the journal's last 20 entries, :journal all all of it")
            }
            last = number
        }
        let session = try requireSession()
        let length = session.journalLength
        let first = max(session.firstNumber, last.map { length - $0 + 1 } ?? 1)
        // A damaged row is named and left out; the others are listed.
        let listing = try session.journalListing(first ... max(first, length))
        for problem in listing.damaged { reportMessage("session '\(session.name)': \(problem); left out") }
        let entries = listing.entries
        guard !entries.isEmpty else { return print(listing.damaged.isEmpty ? "the journal is empty" : "no entry of the journal could be read") }
        let width = String(entries.last!.number).count + 1
        let text = ActionText(host.renderOptions)
        let now = Date()
        print(entries.map { entry in
            let mark = StepReference.entryMark(entry.number)
            let (time, what) = journalText(entry.line, text: text, now: now)
            // Cut to the terminal, as every devtools line is: a payload of megabytes is one line of it
            // (`:export` writes the entries whole).
            return DisplayWidth.truncate(String(repeating: " ", count: width - mark.count) + mark + "  " + time + "  " + what,
                                         to: text.width, ellipsis: text.unicode ? "…" : "...")
        }.joined(separator: "\n"))
    }

    /// An action-log line as the command that does it again, and its time as a person reads it (the
    /// hour, with the day when it is not today). A line that no longer decodes shows as it is.
    func journalText(_ line: String, text: ActionText, now: Date = Date()) -> (time: String, what: String) {
        guard let entry = try? ActionLogEntry.parse(line, decode: host.logDecoder) else {
            return (Self.journalTime(nil, now: now), line)
        }
        let what: String
        switch entry.event {
        case let .action(action):
            what = ":dispatch " + text.action(action, limit: .max) + (entry.isFollowUp ? "  (a subscriber's)" : "")
                + (entry.group.map { "  (in \"\($0.label)\")" } ?? "")
        case let .step(step):
            what = ":\(step)"
        case let .states(label, states):
            what = ":\(label)  (\(states.map(\.store).joined(separator: ", ")))"
        }
        return (Self.journalTime(entry.time, now: now), what)
    }

    /// `06:30:12` today, `2026-11-27 06:30` another day (the local time zone).
    static func journalTime(_ seconds: Double?, now: Date) -> String {
        guard let seconds else { return "--:--:--" }
        let date = Date(timeIntervalSince1970: seconds)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = Calendar.current.isDate(date, inSameDayAs: now) ? "HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
