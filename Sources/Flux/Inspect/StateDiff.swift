/// What changed in one store's state: each changed path with its value before and after, as
/// `ticTacToe.board[5]: nil → "X"`.
///
/// Lists and fields are compared member by member, so a change deep inside shows at its own path; a
/// member that changed kind (a number that became a table) shows whole. A missing field and `nil` are
/// the same, as in Lua.
///
/// ```swift
/// let diff = StateDiff(store: "ticTacToe", old: try StateValue(encoding: before), new: try StateValue(encoding: after))
/// diff.lines()   // ["ticTacToe.board[5]: nil → \"X\"", "ticTacToe.gameInstruction: \"X's turn\" → \"O's turn\""]
/// ```
public struct StateDiff: Equatable, Sendable {
    /// One changed path.
    public struct Change: Equatable, Sendable {
        /// The path after the store's name: `.board[5]`, empty for the whole state.
        public let path: String
        public let old: StateValue
        public let new: StateValue
    }

    /// The store's name, which every path starts with.
    public let store: String
    /// The changed paths, in the order of the state's fields and items.
    public let changes: [Change]

    /// The differences between `old` and `new`, the states of `store`.
    public init(store: String, old: StateValue, new: StateValue) {
        self.store = store
        var changes: [Change] = []
        Self.compare(old, new, at: "", into: &changes)
        self.changes = changes
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { changes.isEmpty }

    /// One line per change, `store.path: old → new`; where the path leaves too little of the line for
    /// the values (a narrow terminal), two: the path, then the values under it, indented.
    ///
    /// - Parameters:
    ///   - width: The most characters of a line; long values are cut with `…`.
    ///   - maximum: The most changes listed; more are summed up on a last line.
    ///   - unicode: `→` and `…` when true, `->` and `...` otherwise.
    public func lines(width: Int = 80, maximum: Int = .max, unicode: Bool = true) -> [String] {
        let arrow = unicode ? " → " : " -> "
        // The least room for the two values that still shows something of each.
        let least = 2 * 6
        var lines = changes.prefix(maximum).flatMap { change -> [String] in
            let path = store + change.path + ":"
            let fits = width - path.count - 1 - arrow.count >= least
            let (head, indent) = fits ? (path + " ", "") : (path, "    ")
            // Old and new share what is left of the line; a short one leaves its share to the other.
            let room = max(least, width - (fits ? head.count : indent.count) - arrow.count)
            let oldFull = change.old.text(limit: room, unicode: unicode)
            let newLimit = max(room / 2, room - min(oldFull.count, room / 2))
            let new = change.new.text(limit: newLimit, unicode: unicode)
            let old = change.old.text(limit: max(room / 2, room - new.count), unicode: unicode)
            return fits ? [head + old + arrow + new] : [head, indent + old + arrow + new]
        }
        if changes.count > maximum {
            let more = changes.count - maximum
            lines.append("\(store): \(more) more change\(more == 1 ? "" : "s")")
        }
        return lines
    }

    private static func compare(_ old: StateValue, _ new: StateValue, at path: String, into changes: inout [Change]) {
        switch (old, new) {
        case let (.array(a), .array(b)):
            for index in 0 ..< max(a.count, b.count) {
                compare(index < a.count ? a[index] : .null, index < b.count ? b[index] : .null,
                        at: path + "[\(index + 1)]", into: &changes)
            }
        // An empty Lua table reads as no fields, a filled one as a list: still the same list.
        case let (.object(a), .array) where a.isEmpty:
            compare(.array([]), new, at: path, into: &changes)
        case let (.array, .object(b)) where b.isEmpty:
            compare(old, .array([]), at: path, into: &changes)
        case let (.object(a), .object(b)):
            let before = Dictionary(a.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            let after = Dictionary(b.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            for key in Set(before.keys).union(after.keys).sorted() {
                compare(before[key] ?? .null, after[key] ?? .null, at: path + StateValue.member(key), into: &changes)
            }
        default:
            if old != new { changes.append(Change(path: path, old: old, new: new)) }
        }
    }
}
