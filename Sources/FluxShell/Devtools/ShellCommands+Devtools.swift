import Flux
import FluxSession
import FluxLua

extension Shell {
    /// `:log on|off`; alone, says whether it is on.
    func log(_ arguments: CommandArguments) throws {
        switch try arguments.optional() {
        case nil: print(isLogging ? "logging every action (:log off stops)" : "not logging (:log on starts)")
        case "on":
            isLogging = true
            print("logging every action: its payload and what it changed (:log off stops)")
        case "off":
            isLogging = false
            print("stopped logging")
        default: throw arguments.usage
        }
    }

    /// The heading `:watch` prints above a view's patch: the action and what it changed in the view's
    /// store (none while `:log` is on: its entry says it, for every store).
    func watchHeading(for view: String) -> String {
        guard !isLogging, let name = host.views.provider(named: view)?.store, let store = dispatcher.store(named: name),
              let (action, diff) = monitor.pendingDiff(of: store) else { return "" }
        let text = ActionText(host.renderOptions)
        return ([text.action(action)] + text.changes([diff], maximum: 10)).joined(separator: "\n") + "\n"
    }

    /// `:undo [count]`, `:redo [count]`: several steps silently, so subscribers and watches hear where
    /// they end, once.
    func travel(_ arguments: CommandArguments, undo: Bool) throws {
        var count = 1
        if !arguments.words.isEmpty { count = try arguments.number(from: 1) }
        var labels: [String] = []
        try dispatcher.silently {
            for _ in 0 ..< count {
                let history = dispatcher.history
                guard let label = undo ? history.undoLabels.last : history.redoLabels.first,
                      undo ? try dispatcher.undo() : try dispatcher.redo() else { break }
                labels.append(label)
            }
        }
        guard !labels.isEmpty else { return print((undo ? "nothing to undo" : "nothing to redo") + historyWaitNote) }
        let verb = undo ? "undid " : "redid "
        print(labels.count == 1 ? verb + labels[0] : verb + "\(labels.count) steps: " + labels.joined(separator: ", "))
    }

    /// `:history`; `:history 20` or `:history all` list the session's journal (as `:journal` does).
    func listHistory(_ count: String?) throws {
        guard let count else { return listSteps() }
        try listJournalEntries(count)
    }

    /// `:history`: the undo steps with their payloads and the stores each changed.
    func listSteps() {
        let history = dispatcher.history
        let steps = history.steps
        let entries = steps.undo + steps.redo.reversed()
        guard !entries.isEmpty else { return print("no history yet" + historyWaitNote) }
        let seen = monitor.steps(of: history)
        let text = ActionText(host.renderOptions)
        let width = String(entries.count).count
        // Where now is: in the terminal's characters, and shorter where the whole line would not fit.
        let rule = text.unicode ? "──" : "--"
        let marker = ["  \(rule) now (:undo goes up, :redo down) \(rule)", "  \(rule) now \(rule)"].first { $0.count <= text.width }
            ?? "  \(rule) now \(rule)"
        var lines: [String] = []
        for (index, entry) in entries.enumerated() {
            if index == steps.undo.count { lines.append(marker) }
            let number = StepReference.stepMark(index + 1)
            let lead = "  " + String(repeating: " ", count: width + 1 - number.count) + number + " "
            let stores = seen?[index].stores ?? entry.changes.map(\.target.name)
            let tail = (text.unicode ? "  → " : "  -> ") + stores.joined(separator: ", ") + (index >= steps.undo.count ? "  (undone)" : "")
            let single: (any Action)? = seen.flatMap { $0[index].count == 1 && $0[index].group == nil ? $0[index].actions[0] : nil }
            var what = entry.label
            if let single {
                what = text.action(single, limit: .max)
            } else if let step = seen?[index], step.count > 0 {
                what = "\(step.label) (\(step.count) action\(step.count == 1 ? "" : "s"))"
            }
            if lead.count + what.count + tail.count <= text.width {
                lines.append(lead + what + tail)
            } else {
                // Too long for one line: the stores go on the next, under the action.
                lines.append(lead + (single.map { text.action($0, limit: text.width - lead.count) } ?? what))
                lines.append(String(repeating: " ", count: lead.count) + tail.dropFirst(2))
            }
        }
        if steps.undo.count == entries.count { lines.append(marker) }
        print(lines.joined(separator: "\n"))
    }

    /// `:show #N` (or `:show N`): every path undo step N of `:history` changed.
    func show(_ reference: StepReference) throws {
        switch reference {
        case let .step(number), let .bare(number): try show(step: number)
        case let .entry(number):
            throw ShellCommandError.failed("\(StepReference.entryMark(number)) is a journal entry: :show takes an undo step of :history, #1-#\(dispatcher.history.steps.undo.count + dispatcher.history.steps.redo.count)")
        }
    }

    /// `:show N`: every path step N of `:history` changed.
    func show(step number: Int) throws {
        let steps = dispatcher.history.steps
        let entries = steps.undo + steps.redo.reversed()
        // Compared before counting from 0, so that `:show -9223372036854775808` is refused, not an overflow.
        guard number >= 1, number <= entries.count else {
            throw ShellCommandError.failed(entries.isEmpty ? "no history yet" : "no step #\(number): :history lists steps #1-#\(entries.count)")
        }
        let index = number - 1
        let seen = monitor.steps(of: dispatcher.history)
        let text = ActionText(host.renderOptions)
        let lead = "\(StepReference.stepMark(number)) ", tail = index >= steps.undo.count ? "  (undone)" : ""
        var lines = [lead + (seen.map { step in
            step[index].count == 1 && step[index].group == nil
                ? text.action(step[index].actions[0], limit: text.width - lead.count - tail.count) : step[index].label
        } ?? entries[index].label) + tail]
        if let step = seen?[index], step.count > 1 {
            lines += step.actions.map { "   " + text.action($0, limit: text.width - 3) }
            if step.count > step.actions.count {
                // Only the first actions are kept per step; the session's journal holds every one.
                let more = step.count - step.actions.count, kept = ActionMonitor.keptActions
                lines.append("   \(text.unicode ? "…" : "...") and \(more) more actions (a step keeps its first \(kept)"
                    + (session == nil ? ")" : "; :journal all lists every action)"))
            }
        }
        lines += text.changes(StepDiff.diffs(ofStep: index, undo: steps.undo, redo: steps.redo), maximum: .max)
        print(lines.joined(separator: "\n"))
    }

    /// `:goto N`: with a session, the state right after entry N of the journal, as one undo step
    /// (``Session/goTo(entry:decode:)``); without one, undoes or redoes until the state is the one right
    /// after step N of `:history` (0: before the first), silently: subscribers and watches hear where it
    /// ends, not each step on the way.
    func goTo(_ reference: StepReference) throws {
        switch reference {
        case let .entry(number):
            guard let session else {
                throw ShellCommandError.failed("\(StepReference.entryMark(number)) is a journal entry, and no session is kept: :goto #N goes to undo step N of :history")
            }
            try goTo(entry: number, in: session)
        case let .bare(number):
            if let session { return try goTo(entry: number, in: session) }
            try goTo(step: number)
        case let .step(number):
            try goTo(step: number)
        }
    }

    func goTo(step number: Int) throws {
        let steps = dispatcher.history.steps
        let total = steps.undo.count + steps.redo.count
        guard number <= total else {
            throw ShellCommandError.failed(total == 0 ? "no history yet" : "no step #\(number): :history lists steps #1-#\(total) (#0 is before the first)")
        }
        let done = steps.undo.count
        guard number != done else { return print("already at undo step #\(number)") }
        let undo = number < done
        try dispatcher.silently {
            for _ in 0 ..< abs(number - done) {
                guard undo ? try dispatcher.undo() : try dispatcher.redo() else { break }
            }
        }
        print("at undo step #\(number) of \(total)" + (number == 0 ? " (before the first)" : ": after " + dispatcher.history.undoLabels.last!))
    }
}

extension Shell {
    /// `:goto N` in a session: the replay it runs is neither logged nor watched action by action.
    private func goTo(entry number: Int, in session: Session) throws {
        let logging = isLogging
        isLogging = false
        defer { isLogging = logging }
        let travel: JournalTravel
        do {
            travel = try session.goTo(entry: number, decode: host.logDecoder)
        } catch let error as SessionError {
            throw ShellCommandError.failed(error.description)
        }
        guard !travel.changed.isEmpty else {
            return print(travel.entry == 0 ? "already as before the first entry" : "already as right after journal entry @\(travel.entry)")
        }
        print("at journal entry @\(travel.entry) of \(travel.journalLength)" + (travel.entry == 0 ? " (before the first)" : "")
            + ": one step, :undo goes back")
    }
}
