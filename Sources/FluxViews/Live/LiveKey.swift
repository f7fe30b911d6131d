/// A key pressed in a live view, decoded from the terminal's bytes or named by a test (`"down"`,
/// `"ctrl+r"`, `"j"`).
public enum LiveKey: Hashable, Sendable, CustomStringConvertible {
    case up, down, left, right, pageUp, pageDown, home, end, tab, backTab, enter, escape, backspace
    /// A printable character, space included.
    case character(Character)
    /// A letter with Ctrl (`control("r")` for Ctrl-R), lowercase.
    case control(Character)
    /// A click of the first mouse button on the screen's `line` and `column`, both from 0 (the top left).
    case click(line: Int, column: Int)

    /// The names ``init(name:)`` knows besides single characters and `ctrl+x`.
    static let named: [String: LiveKey] = [
        "up": .up, "down": .down, "left": .left, "right": .right,
        "pageup": .pageUp, "pgup": .pageUp, "pagedown": .pageDown, "pgdn": .pageDown,
        "home": .home, "end": .end, "tab": .tab, "backtab": .backTab, "shift+tab": .backTab,
        "enter": .enter, "return": .enter, "escape": .escape, "esc": .escape, "backspace": .backspace,
        "space": .character(" "),
    ]

    /// The key called `name`: a character (`"j"`, `"?"`), `ctrl+LETTER`, or one of up, down, left, right,
    /// pageup (pgup), pagedown (pgdn), home, end, tab, backtab (shift+tab), enter (return), escape (esc),
    /// backspace, space. Nil for any other name.
    public init?(name: String) {
        let lowered = name.lowercased()
        if let key = Self.named[lowered] {
            self = key
        } else if lowered.hasPrefix("ctrl+"), lowered.count == 6, let letter = lowered.last, letter.isLetter {
            self = .control(letter)
        } else if name.count == 1, let character = name.first, !character.isNewline,
                  character.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) {
            self = .character(character)
        } else {
            return nil
        }
    }

    /// The key's name, as ``init(name:)`` reads it.
    public var description: String {
        switch self {
        case .character(" "): "space"
        case let .character(character): String(character)
        case let .control(letter): "ctrl+\(letter)"
        case let .click(line, column): "click at line \(line), column \(column)"
        default: Self.named.filter { $0.value == self }.map(\.key).sorted { $0.count > $1.count }.first ?? "?"
        }
    }
}
