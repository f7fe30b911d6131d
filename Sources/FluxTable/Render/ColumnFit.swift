/// Shares a line's width among columns: while the columns are too wide, the widest shrinks first (ties
/// shrink the later column, keeping the first one, the title, longest), and none shrinks below
/// `minimum` (or its natural width, if smaller).
///
/// When even the minimums do not fit, the columns stay at their minimums and the line runs long:
/// a table with unreadable one-letter columns would help no one.
func fitColumns(_ natural: [Int], into available: Int, minimum: Int) -> [Int] {
    var widths = natural
    let floors = natural.map { min($0, minimum) }
    var excess = widths.reduce(0, +) - available
    while excess > 0 {
        let shrinkable = widths.indices.filter { widths[$0] > floors[$0] }
        guard let top = shrinkable.map({ widths[$0] }).max() else { break }
        let tied = shrinkable.filter { widths[$0] == top }
        let next = widths.indices.filter { widths[$0] < top }.map { widths[$0] }.max() ?? 0
        let floor = max(next, tied.map { floors[$0] }.max() ?? 0)
        let room = (top - floor) * tied.count
        if room <= excess {
            for index in tied { widths[index] = floor }
            excess -= room
        } else {
            // Lower the tied columns evenly; the later ones give up the remainder.
            let each = excess / tied.count
            let extra = excess % tied.count
            for (position, index) in tied.enumerated() {
                widths[index] = top - each - (position >= tied.count - extra ? 1 : 0)
            }
            excess = 0
        }
    }
    return widths
}
