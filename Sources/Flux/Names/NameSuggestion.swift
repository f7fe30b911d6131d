/// The names closest to one that was not found, for errors that suggest the fix: `unknown action
/// 'tictactoe.placeToken': did you mean 'ticTacToe.placeToken'?`.
///
/// Closeness is the edit distance (insertions, deletions, substitutions and swaps of two neighbours)
/// with case folded, so a wrong capital costs nothing; a name that the typed one begins (`:hist` for
/// `:history`) or that ends in it after a dot (`placeToken` for `ticTacToe.placeToken`) is close too.
public enum NameSuggestion {
    /// The names of `known` close enough to `name` to suggest, the closest first (at most `limit`).
    public static func closest(to name: String, in known: some Sequence<String>, limit: Int = 3) -> [String] {
        let typed = Array(name.lowercased())
        guard !typed.isEmpty else { return [] }
        var scored: [(name: String, score: Int)] = []
        for candidate in Set(known) where candidate != name {
            let folded = Array(candidate.lowercased())
            let score: Int
            if folded == typed {
                score = 0
            } else if folded.count > typed.count, folded.starts(with: typed), typed.count >= 2 {
                score = 1
            } else if let dot = folded.lastIndex(of: "."), Array(folded[(dot + 1)...]) == typed {
                score = 1
            } else {
                let distance = editDistance(typed, folded)
                // One edit in four characters at most, one at least, never all of them (`x` is not `y`).
                guard distance <= max(1, min(typed.count, folded.count) / 4), distance < min(typed.count, folded.count) else { continue }
                score = 1 + distance
            }
            scored.append((candidate, score))
        }
        return scored.sorted { ($0.score, $0.name) < ($1.score, $1.name) }.prefix(limit).map(\.name)
    }

    /// `did you mean 'a'?` or `did you mean 'a' or 'b'?`; nil when nothing is close.
    public static func didYouMean(_ name: String, in known: some Sequence<String>, quote: String = "'") -> String? {
        let names = closest(to: name, in: known).map { quote + $0 + quote }
        guard let last = names.last else { return nil }
        let listed = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
        return "did you mean \(listed)?"
    }

    /// The restricted Damerau–Levenshtein distance (optimal string alignment) between `a` and `b`.
    public static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)   // row i - 2
        var previous = Array(0...b.count)                       // row i - 1
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, before[j - 2] + 1)
                }
                current[j] = value
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
