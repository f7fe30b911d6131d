/// Replays an action log into a dispatcher: the same actions, undo steps and groups, in order.
///
/// The whole log is parsed and decoded before anything is dispatched, so a malformed line, an unknown
/// action or a payload of the wrong shape stops the replay with a ``ReplayError`` giving its line
/// number, and nothing of the log is applied. A dispatch that fails stops the replay at its line: the
/// lines before it stay applied (each was a valid step), nothing of that line is.
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
    ///
    /// - Parameters:
    ///   - progress: Called before each entry is applied with how many were applied and how many there are.
    ///   - shouldStop: Asked before each entry; true stops the replay with a ``ReplayError`` whose ``ReplayError/isStopped``.
    public func replay(contentsOf text: String, progress: ((_ applied: Int, _ total: Int) -> Void)? = nil,
                       shouldStop: @escaping () -> Bool = { false }) throws(ReplayError) -> Int {
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
                        if shouldStop() { throw ReplayStopped() }
                        progress?(applied, total)
                        try apply(entry)
                        applied += 1
                    }
                }
                if let group = first.entry.group { try dispatcher.group(group.label, run) } else { try run() }
            } catch is ReplayStopped {
                throw ReplayError(line: current, message: ReplayError.stopped)
            } catch {
                throw ReplayError(line: current, message: DispatcherError.describe(error))
            }
        }

        let entries = try entries(in: text)
        let total = entries.count
        for (line, entry) in entries {
            if let last = batch.last, entry.group == nil || last.entry.group?.id != entry.group?.id {
                try flush()
            }
            batch.append((line, entry))
        }
        try flush()
        return applied
    }

    /// Every entry of the log with its line number (1-based), checked without dispatching anything.
    ///
    /// - Throws: ``ReplayError`` for the first line that is not an entry of a known action.
    public func entries(in text: String) throws(ReplayError) -> [(line: Int, entry: ActionLogEntry)] {
        var entries: [(line: Int, entry: ActionLogEntry)] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace
            guard !line.isEmpty else { continue }
            do {
                entries.append((offset + 1, try ActionLogEntry.parse(String(line), registry: dispatcher.registry)))
            } catch {
                throw ReplayError(line: offset + 1, message: Self.describe(error))
            }
        }
        return entries
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

    /// The message of a replay its `shouldStop` stopped.
    public static let stopped = "stopped"
    /// Whether the replay was stopped rather than failed.
    public var isStopped: Bool { message == Self.stopped }
}

/// Thrown out of a batch when `shouldStop` said so.
private struct ReplayStopped: Error {}

extension Substring {
    var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
