/// Replays an action log into a dispatcher: the same actions, undo steps and groups, in order.
///
/// A replay is all or nothing. The whole log is parsed and decoded before anything is dispatched, so
/// a malformed line, an unknown action or a payload of the wrong shape stops it with a ``ReplayError``
/// giving its line number. A dispatch that fails part-way puts every store and the undo history back
/// as they were before the replay (subscribers then hear those states again).
///
/// Actions a subscriber dispatched are in the log as follow-ups: while a log replays, subscribers'
/// dispatches are dropped and the recorded follow-ups run in their places, so none runs twice.
/// Lines may end in `\n` or `\r\n`; the last may have no newline.
///
/// ```swift
/// let count = try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: text)
/// ```
public struct ActionReplayer {
    /// The dispatcher actions are replayed into.
    public let dispatcher: Dispatcher
    /// How a line's action is built from its name and payload.
    public let decode: ActionLogEntry.Decode

    /// A replayer into `dispatcher`; `decode` builds the actions (by default its registry, from JSON).
    public init(dispatcher: Dispatcher, decode: ActionLogEntry.Decode? = nil) {
        self.dispatcher = dispatcher
        self.decode = decode ?? ActionLogEntry.decoding(with: dispatcher.registry)
    }

    /// Replays JSON Lines text; returns how many entries were applied.
    ///
    /// - Parameters:
    ///   - progress: Called before each entry is applied with how many were applied and how many there are.
    ///   - shouldStop: Asked before each entry; true stops the replay with a ``ReplayError`` whose
    ///     ``ReplayError/isStopped``, and nothing of it stays applied.
    @discardableResult
    public func replay(contentsOf text: String, progress: ((_ applied: Int, _ total: Int) -> Void)? = nil,
                       shouldStop: @escaping () -> Bool = { false }) throws(ReplayError) -> Int {
        try replay(try entries(in: text), progress: progress, shouldStop: shouldStop)
    }

    /// Replays parsed entries (with the line number each error names); returns how many were applied.
    @discardableResult
    public func replay(_ entries: [(line: Int, entry: ActionLogEntry)],
                       progress: ((_ applied: Int, _ total: Int) -> Void)? = nil,
                       shouldStop: @escaping () -> Bool = { false }) throws(ReplayError) -> Int {
        let dropped = dispatcher.dropsFollowUps
        dispatcher.dropsFollowUps = true
        defer { dispatcher.dropsFollowUps = dropped }
        do {
            return try dispatcher.allOrNothing { try apply(entries, progress: progress, shouldStop: shouldStop) }
        } catch let error as ReplayError {
            throw error
        } catch {
            throw ReplayError(line: entries.first?.line ?? 0, message: DispatcherError.describe(error))
        }
    }

    private func apply(_ entries: [(line: Int, entry: ActionLogEntry)],
                       progress: ((_ applied: Int, _ total: Int) -> Void)?,
                       shouldStop: @escaping () -> Bool) throws(ReplayError) -> Int {
        let total = entries.count
        var applied = 0
        // Consecutive entries of one undo group are dispatched together, inside that group.
        var batch: ArraySlice<(line: Int, entry: ActionLogEntry)> = []

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

        for item in entries {
            if let last = batch.last, item.entry.group == nil || last.entry.group?.id != item.entry.group?.id {
                try flush()
            }
            batch.append(item)
        }
        try flush()
        return applied
    }

    /// Every entry of the log with its line number (1-based), checked without dispatching anything.
    ///
    /// - Throws: ``ReplayError`` for the first line that is not an entry of a known action.
    public func entries(in text: String) throws(ReplayError) -> [(line: Int, entry: ActionLogEntry)] {
        var entries: [(line: Int, entry: ActionLogEntry)] = []
        for (offset, raw) in Self.lines(of: text).enumerated() {
            let line = raw.trimmingWhitespace
            guard !line.isEmpty else { continue }
            do {
                entries.append((offset + 1, try ActionLogEntry.parse(String(line), decode: decode)))
            } catch {
                throw ReplayError(line: offset + 1, message: Self.describe(error))
            }
        }
        return entries
    }

    /// The lines of `text`, split at every `\n` whether or not `\r` precedes it (a `Character` split
    /// would not: `\r\n` is one character), the `\r` dropped; a last line needs no newline.
    static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        var start = text.startIndex
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "\n") {
                var end = index
                if end > start, utf8[utf8.index(before: end)] == UInt8(ascii: "\r") { end = utf8.index(before: end) }
                lines.append(text[start ..< end])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != text.endIndex { lines.append(text[start...]) }
        return lines
    }

    private func apply(_ entry: ActionLogEntry) throws {
        switch entry.event {
        case .step(.undo): try dispatcher.undo()
        case .step(.redo): try dispatcher.redo()
        case let .states(label, states):
            try dispatcher.setStates(try states.map { try $0.decoded(in: dispatcher) }, label: label)
        case let .action(action):
            // Still a follow-up for whoever journals or records the replay, so that it is not dispatched twice later.
            let wasFollowUp = dispatcher.isFollowUp, wasEffect = dispatcher.isEffect
            dispatcher.isFollowUp = entry.isFollowUp
            dispatcher.isEffect = entry.isEffect
            defer {
                dispatcher.isFollowUp = wasFollowUp
                dispatcher.isEffect = wasEffect
            }
            try dispatcher.dispatch(action)
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? LogLineError { return "not a log entry: \(error)" }
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
