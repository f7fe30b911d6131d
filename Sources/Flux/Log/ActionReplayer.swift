/// Replays an action log into a dispatcher: the same actions, undo steps and groups, in order.
///
/// Every line is parsed and decoded before anything is dispatched from it; a malformed line, an unknown
/// action or a failing dispatch stops the replay with a ``ReplayError`` giving its line number. The
/// lines before it stay applied; nothing of that line is.
///
/// ```swift
/// let count = try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: text)
/// ```
public struct ActionReplayer {
    /// The dispatcher actions are replayed into.
    public let dispatcher: Dispatcher

    /// A replayer into `dispatcher`, whose registry builds the actions.
    public init(dispatcher: Dispatcher) {
        self.dispatcher = dispatcher
    }

    /// Replays JSON Lines text; returns how many entries were applied.
    @discardableResult
    public func replay(contentsOf text: String) throws(ReplayError) -> Int {
        var applied = 0
        var lineNumber = 0
        var openGroup: Int?
        var pending: [ActionLogEntry] = []

        func flush() throws(ReplayError) {
            guard !pending.isEmpty else { return }
            let batch = pending
            pending.removeAll()
            let firstLine = lineNumber - batch.count
            var index = 0
            do {
                let run = {
                    for entry in batch {
                        try apply(entry)
                        index += 1
                    }
                }
                if let group = batch.first?.group { try dispatcher.group(group.label, run) } else { try run() }
            } catch {
                throw ReplayError(line: firstLine + index, message: DispatcherError.describe(error))
            }
            applied += batch.count
        }

        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.trimmingWhitespace
            guard !trimmed.isEmpty else {
                try flush()
                continue
            }
            let entry: ActionLogEntry
            do {
                entry = try ActionLogEntry.parse(String(trimmed), registry: dispatcher.registry)
            } catch {
                // Entries before this line (and its group's earlier lines) are applied first.
                lineNumber -= 1
                try flush()
                throw ReplayError(line: lineNumber + 1, message: Self.describe(error))
            }
            if entry.group?.id != openGroup || entry.group == nil {
                lineNumber -= 1
                try flush()
                lineNumber += 1
            }
            openGroup = entry.group?.id
            pending.append(entry)
        }
        try flush()
        return applied
    }

    private func apply(_ entry: ActionLogEntry) throws {
        switch entry.name {
        case ActionLogEntry.undoName: try dispatcher.undo()
        case ActionLogEntry.redoName: try dispatcher.redo()
        default: if let action = entry.action { try dispatcher.dispatch(action) }
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError { return "not a log entry: \(error.fieldMessage)" }
        return DispatcherError.describe(error)
    }
}

/// Why a replay stopped, and at which line (1-based).
public struct ReplayError: Error, Equatable, CustomStringConvertible {
    /// The line that could not be applied.
    public let line: Int
    /// What was wrong with it.
    public let message: String

    public var description: String { "line \(line): \(message)" }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
