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
        // Consecutive entries of one undo group are dispatched together, inside that group.
        var batch: [(line: Int, entry: ActionLogEntry)] = []

        func flush() throws(ReplayError) {
            defer { batch.removeAll() }
            guard let first = batch.first else { return }
            var current = first.line
            do {
                let run = {
                    for (line, entry) in batch {
                        current = line
                        try apply(entry)
                        applied += 1
                    }
                }
                if let group = first.entry.group { try dispatcher.group(group.label, run) } else { try run() }
            } catch {
                throw ReplayError(line: current, message: DispatcherError.describe(error))
            }
        }

        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace
            guard !line.isEmpty else { continue }
            let entry: ActionLogEntry
            do {
                entry = try ActionLogEntry.parse(String(line), registry: dispatcher.registry)
            } catch {
                try flush()
                throw ReplayError(line: offset + 1, message: Self.describe(error))
            }
            if let last = batch.last, entry.group == nil || last.entry.group?.id != entry.group?.id {
                try flush()
            }
            batch.append((offset + 1, entry))
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
