/// Errors nobody can catch (a subscriber's, a watcher's, a follow-up action's), shown so that a flood
/// does not bury the terminal: the same error from the same callback is shown once in full, then counted
/// until ``flush()`` (the end of a line or a run) writes one summary line for it.
///
/// The same error is one raised by the same callback at the same place (``place(message:traceback:)``),
/// whatever its text: `error("bad n=" .. s.n)` raised on every change is one error counted, not a
/// new one each time its text changes.
final class ErrorThrottle {
    /// One error as `:errors` lists it.
    struct Record {
        /// What raised it: `subscriber of 'counter'`.
        let source: String
        /// Tells apart two callbacks of one source.
        let callback: String
        /// Where it was raised (file and line), or its message when that is not known.
        let place: String
        /// Its message (the first time), without the traceback.
        let message: String
        /// How often it was raised.
        var count: Int
    }

    /// How many distinct errors `:errors` keeps, the most recent.
    static let kept = 100

    /// The distinct errors raised, oldest first.
    private(set) var records: [Record] = []
    private var index: [String: Int] = [:]
    /// The errors counted and not shown since the last flush, by key, in the order first counted.
    private var unshown: [(key: String, count: Int)] = []
    private var unshownIndex: [String: Int] = [:]
    private var shown: Set<String> = []

    /// Notes an error raised by `callback` (any text that tells callbacks apart).
    ///
    /// - Returns: whether to show it in full (the first time since the last flush).
    func note(source: String, callback: String, place: String, message: String) -> Bool {
        let key = callback + "\u{0}" + place
        if let position = index[key] {
            records[position].count += 1
        } else {
            index[key] = records.count
            records.append(Record(source: source, callback: callback, place: place, message: message, count: 1))
            if records.count > Self.kept * 2 { forgetOldest() }
        }
        if shown.insert(key).inserted { return true }
        if let position = unshownIndex[key] {
            unshown[position].count += 1
        } else {
            unshownIndex[key] = unshown.count
            unshown.append((key, 1))
        }
        return false
    }

    /// The summary lines of the errors counted since the last flush: `… the same error 9,999 more times`.
    func flush() -> [String] {
        defer {
            unshown.removeAll()
            unshownIndex.removeAll()
            shown.removeAll()
        }
        return unshown.map { key, count in
            let source = index[key].map { records[$0].source } ?? "?"
            let times = count == 1 ? "1 more time" : "\(Self.grouped(count)) more times"
            return "… the same error \(times) (\(source))"
        }
    }

    /// Keeps the most recent ``kept`` records (amortized: it runs when twice as many are held).
    private func forgetOldest() {
        records.removeFirst(records.count - Self.kept)
        index = [:]
        for (position, record) in records.enumerated() {
            index[key(record)] = position
        }
    }

    private func key(_ record: Record) -> String { record.callback + "\u{0}" + record.place }

    /// Where an error was raised: the innermost Lua frame of its traceback (`plugins/p1.lua:4`), else
    /// the place its message starts with, else the message itself.
    static func place(message: String, traceback: String?) -> String {
        if let traceback, let frame = traceback.firstMatch(of: #/\n\t(?!\[C\])([^\n]+?:\d+):/#) {
            return String(frame.output.1)
        }
        if let located = message.firstMatch(of: #/^([^\n]*?:\d+): /#) { return String(located.output.1) }
        return message
    }

    /// `9999` as `9,999`.
    static func grouped(_ count: Int) -> String {
        var digits = String(count)
        var position = digits.count - 3
        while position > 0 {
            digits.insert(",", at: digits.index(digits.startIndex, offsetBy: position))
            position -= 3
        }
        return digits
    }
}
