/// Finds lines of equal tokens on a board: the win detection every board game shares.
enum BoardLines {
    /// The four ways a line can run, as (column, row) steps: across, down, and both diagonals.
    private static let directions = [(1, 0), (0, 1), (1, 1), (1, -1)]

    /// The longest run of `player`'s tokens through cell `index`, ascending; only `index` when no
    /// neighbour continues it. Checking only lines through the last move is enough: any earlier line
    /// would already have ended the game.
    static func line(through index: Int, of player: Player, in game: BoardGameState) -> [Int] {
        let column = index % game.columns
        let row = index / game.columns
        var longest = [index]
        for (dx, dy) in directions {
            var line = [index]
            for sign in [1, -1] {
                var x = column + sign * dx
                var y = row + sign * dy
                while (0..<game.columns).contains(x), (0..<game.rows).contains(y), game[column: x, row: y] == player {
                    line.append(y * game.columns + x)
                    x += sign * dx
                    y += sign * dy
                }
            }
            if line.count > longest.count { longest = line }
        }
        return longest.sorted()
    }
}
