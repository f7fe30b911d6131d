/// Replays an action log into a dispatcher: the same actions, undo steps and groups, in order.
///
/// A replay is all or nothing. A malformed line, an unknown action, a payload of the wrong shape or a
/// dispatch that fails stops it with a ``ReplayError`` giving its line number, and puts every store and
/// the undo history back as they were before the replay (subscribers then hear those states again).
///
/// A log streams: each line is parsed, applied and dropped in turn (an undo group's lines are kept
/// until the group is dispatched), so a replay's memory does not grow with the log's length (see
/// ``replay(file:progress:shouldStop:)``). Before that, its lines are counted, for the progress.
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

    /// The lines of a log, each given to `body` with its number (from 1), in order: read once to check
    /// them, then once more to apply them.
    typealias Lines = (_ body: (_ number: Int, _ line: Substring) throws -> Void) throws -> Void

    /// Replays JSON Lines text; returns how many entries were applied.
    ///
    /// - Parameters:
    ///   - progress: Called before each entry is applied with how many were applied and how many there are.
    ///   - shouldStop: Asked before each entry; true stops the replay with a ``ReplayError`` whose
    ///     ``ReplayError/isStopped``, and nothing of it stays applied.
    @discardableResult
    public func replay(contentsOf text: String, progress: ((_ applied: Int, _ total: Int) -> Void)? = nil,
                       shouldStop: @escaping () -> Bool = { false }) throws(ReplayError) -> Int {
        try replay(lines: { body in try Self.forEachLine(of: text, body) }, progress: progress, shouldStop: shouldStop)
    }

    /// Replays the log in `file`, read a buffer at a time (twice: to count its lines, then to apply
    /// them), so memory stays flat however long the log; returns how many entries were applied. A line
    /// that is not UTF-8 text is a ``ReplayError`` of its line, found before anything is applied.
    @discardableResult
    public func replay(file: ActionLogFile, progress: ((_ applied: Int, _ total: Int) -> Void)? = nil,
                       shouldStop: @escaping () -> Bool = { false }) throws(ReplayError) -> Int {
        try replay(lines: file.forEachLine, progress: progress, shouldStop: shouldStop)
    }

    /// Replays parsed entries (with the line number each error names); returns how many were applied.
    @discardableResult
    public func replay(_ entries: [(line: Int, entry: ActionLogEntry)],
                       progress: ((_ applied: Int, _ total: Int) -> Void)? = nil,
                       shouldStop: @escaping () -> Bool = { false }) throws(ReplayError) -> Int {
        try replay(entries: { body in for (line, entry) in entries { try body(line, entry) } }, total: entries.count,
                   firstLine: entries.first?.line ?? 0, progress: progress, shouldStop: shouldStop)
    }

    /// Counts the lines (for the progress), then parses and applies each in turn, all or nothing.
    private func replay(lines: Lines, progress: ((_ applied: Int, _ total: Int) -> Void)?,
                        shouldStop: @escaping () -> Bool) throws(ReplayError) -> Int {
        var total = 0, first: Int?
        do {
            // Counted without parsing (parsing a line costs several times its dispatch); a file that
            // is not text is found here, before anything is dispatched.
            try lines { number, _ in
                total += 1
                if first == nil { first = number }
            }
        } catch {
            throw ReplayError(line: (error as? ActionLogFileError)?.line ?? 0, message: Self.describe(error))
        }
        return try replay(entries: { body in
            try withoutActuallyEscaping(body) { body in
                try lines { number, line in
                    let entry: ActionLogEntry
                    do {
                        entry = try ActionLogEntry.parse(String(line), decode: decode)
                    } catch {
                        throw ReplayError(line: number, message: Self.describe(error))
                    }
                    try body(number, entry)
                }
            }
        }, total: total, firstLine: first ?? 0, progress: progress, shouldStop: shouldStop)
    }

    /// Entries, each given to `body` with its line number, in order.
    private typealias Entries = (_ body: (_ line: Int, _ entry: ActionLogEntry) throws -> Void) throws -> Void

    private func replay(entries: Entries, total: Int, firstLine: Int, progress: ((_ applied: Int, _ total: Int) -> Void)?,
                        shouldStop: @escaping () -> Bool) throws(ReplayError) -> Int {
        let dropped = dispatcher.dropsFollowUps
        dispatcher.dropsFollowUps = true
        defer { dispatcher.dropsFollowUps = dropped }
        do {
            return try dispatcher.allOrNothing { try apply(entries, total: total, progress: progress, shouldStop: shouldStop) }
        } catch let error as ReplayError {
            throw error
        } catch {
            throw ReplayError(line: firstLine, message: DispatcherError.describe(error))
        }
    }

    private func apply(_ entries: Entries, total: Int, progress: ((_ applied: Int, _ total: Int) -> Void)?,
                       shouldStop: @escaping () -> Bool) throws -> Int {
        var applied = 0
        // Consecutive entries of one undo group are dispatched together, inside that group.
        var batch: [(line: Int, entry: ActionLogEntry)] = []

        func flush() throws(ReplayError) {
            defer { batch.removeAll(keepingCapacity: true) }
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

        try entries { line, entry in
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
        forEachRawLine(of: text) { lines.append($0) }
        return lines
    }

    /// Calls `body` with each line of `text` that is not blank, its number (from 1) and its text trimmed.
    static func forEachLine(of text: String, _ body: (_ number: Int, _ line: Substring) throws -> Void) throws {
        var number = 0
        try forEachRawLine(of: text) { raw in
            number += 1
            let line = raw.trimmingWhitespace
            if !line.isEmpty { try body(number, line) }
        }
    }

    /// Calls `body` with each line of `text`, as ``lines(of:)`` splits them, without keeping them.
    private static func forEachRawLine(of text: String, _ body: (Substring) throws -> Void) rethrows {
        var start = text.startIndex
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "\n") {
                var end = index
                if end > start, utf8[utf8.index(before: end)] == UInt8(ascii: "\r") { end = utf8.index(before: end) }
                try body(text[start ..< end])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != text.endIndex { try body(text[start...]) }
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
        if let error = error as? ActionLogFileError { return error.message }
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
