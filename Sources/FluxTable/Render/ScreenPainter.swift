/// The control sequences a ``ScreenPainter`` draws with. The defaults are ANSI (ECMA-48), which every
/// terminal in use understands; a terminal's own come from its terminfo entry.
public struct TerminalSequences: Sendable {
    /// Moves the cursor to a row and column, both from 0 (terminfo `cup`).
    public var moveTo: @Sendable (_ row: Int, _ column: Int) -> [UInt8]
    /// Clears from the cursor to the end of the line (`el`).
    public var clearToEndOfLine: [UInt8]
    /// Clears the screen (`clear`).
    public var clearScreen: [UInt8]

    /// Sequences given one by one.
    public init(
        moveTo: @escaping @Sendable (_ row: Int, _ column: Int) -> [UInt8],
        clearToEndOfLine: [UInt8], clearScreen: [UInt8]
    ) {
        self.moveTo = moveTo
        self.clearToEndOfLine = clearToEndOfLine
        self.clearScreen = clearScreen
    }

    /// ANSI: `ESC [ row ; column H`, `ESC [ K`, `ESC [ H ESC [ 2 J`.
    public static let ansi = TerminalSequences(
        moveTo: { row, column in Array("\u{1B}[\(row + 1);\(column + 1)H".utf8) },
        clearToEndOfLine: Array("\u{1B}[K".utf8),
        clearScreen: Array("\u{1B}[H\u{1B}[2J".utf8))
}

/// Draws screens of ``ScreenLine``s on a terminal, rewriting only the lines that differ from the screen
/// it drew last: each with one cursor move, its bytes, and a clear of what is left of the line.
///
/// The first screen, one of another size, or any after ``invalidate()`` (the terminal was resumed or
/// someone else wrote on it) is drawn whole, after clearing.
///
/// ```swift
/// var painter = ScreenPainter()
/// write(painter.paint(lines, width: 80, height: 24))   // everything
/// write(painter.paint(next, width: 80, height: 24))    // the lines that changed
/// ```
public struct ScreenPainter: Sendable {
    /// How the painter moves and clears.
    public var sequences: TerminalSequences
    private var shown: [ScreenLine] = []
    private var width = -1
    /// The lines the last ``paint(_:width:height:)`` rewrote.
    public private(set) var linesWritten = 0

    /// A painter that has drawn nothing yet.
    public init(sequences: TerminalSequences = .ansi) {
        self.sequences = sequences
    }

    /// Makes the next paint draw the whole screen.
    public mutating func invalidate() {
        width = -1
    }

    /// The bytes that turn the screen last painted into `lines` (one per row, at most `height`), on a
    /// terminal `width` columns wide.
    public mutating func paint(_ lines: [ScreenLine], width: Int, height: Int) -> [UInt8] {
        var output: [UInt8] = []
        let rows = min(lines.count, max(height, 0))
        let whole = width != self.width || shown.count != rows
        if whole {
            output += sequences.clearScreen
            shown = Array(repeating: .empty, count: rows)
            self.width = width
        }
        linesWritten = 0
        for row in 0 ..< rows where whole || lines[row] != shown[row] {
            let line = lines[row]
            if whole && line.columns == 0 { continue }
            output += sequences.moveTo(row, 0)
            output += line.bytes
            // A line that fills the width leaves the cursor waiting to wrap, where a clear would erase its last
            // character; on a cleared screen nothing is left to clear.
            if !whole && line.columns < width { output += sequences.clearToEndOfLine }
            shown[row] = line
            linesWritten += 1
        }
        return output
    }
}
