/// Reads Lua source a line at a time and tells whether the chunk so far is certainly unfinished: a
/// block, bracket, long string or comment still open, or a last token that needs an operand.
///
/// It knows Lua's tokens, not its grammar: `function`, `do`, `if` and `repeat` open a block, `end`
/// and `until` close one (`while` and `for` open theirs with `do`); brackets nest. What it cannot rule
/// out, the compiler decides. Each line is read once, so a chunk of any length costs time in
/// proportion to its size.
///
/// ```swift
/// var scanner = LuaChunkScanner()
/// scanner.scan("function twice(x)")   // scanner.isUnfinished == true
/// scanner.scan("  return 2 * x")
/// scanner.scan("end")                 // scanner.isUnfinished == false
/// ```
struct LuaChunkScanner {
    private enum State: Equatable {
        case code
        /// Inside `'…'` or `"…"`; `escaped` after a backslash, `skipping` after `\z`.
        case shortString(quote: UInt8, escaped: Bool, skipping: Bool)
        /// Inside `[==[…]==]` of `level` equals signs; a comment's when it follows `--`.
        case long(level: Int, comment: Bool)
    }

    private var state = State.code
    /// Blocks and brackets open.
    private var depth = 0
    /// Whether the last token needs an operand after it: `x = 1 +`.
    private var needsOperand = false
    /// Whether a line ended inside a short string with no backslash: a syntax error the compiler reports.
    private var broken = false

    /// Whether the chunk cannot be complete yet, whatever the compiler would say.
    var isUnfinished: Bool {
        guard !broken else { return false }
        return depth > 0 || needsOperand || state != .code
    }

    private static let opening: Set<String> = ["function", "do", "if", "repeat"]
    private static let closing: Set<String> = ["end", "until"]
    private static let operatorWords: Set<String> = ["and", "or", "not", "local"]

    /// Reads one more line of the chunk (without its newline); a pasted block may hold several.
    mutating func scan(_ line: String) {
        for piece in line.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            piece.withContiguousStorageIfAvailable { scan(bytes: $0) } ?? Array(piece).withUnsafeBufferPointer { scan(bytes: $0) }
            endLine()
        }
    }

    /// The newline at the end of a line.
    private mutating func endLine() {
        switch state {
        case .shortString(_, escaped: true, _), .shortString(_, _, skipping: true):
            state = Self.string(state, escaped: false)
        case .shortString:
            broken = true
            state = .code
        default:
            break
        }
    }

    private mutating func scan(bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let count = bytes.count
        func byte(_ offset: Int) -> UInt8? { index + offset < count ? bytes[index + offset] : nil }
        while index < count {
            let current = bytes[index]
            switch state {
            case let .shortString(quote, escaped, skipping):
                if skipping, Self.isSpace(current) { index += 1; continue }
                if escaped {
                    state = .shortString(quote: quote, escaped: false, skipping: current == UInt8(ascii: "z"))
                } else if current == UInt8(ascii: "\\") {
                    state = .shortString(quote: quote, escaped: true, skipping: false)
                } else if current == quote {
                    state = .code
                } else {
                    state = .shortString(quote: quote, escaped: false, skipping: false)
                }
                index += 1
            case let .long(level, _):
                index += 1
                guard current == UInt8(ascii: "]") else { continue }
                var equals = 0
                while byte(0) == UInt8(ascii: "=") { equals += 1; index += 1 }
                if equals == level, byte(0) == UInt8(ascii: "]") {
                    index += 1
                    state = .code
                }
            case .code:
                if Self.isSpace(current) { index += 1; continue }
                if current == UInt8(ascii: "-"), byte(1) == UInt8(ascii: "-") {
                    index += 2
                    if let level = Self.longBracket(bytes, at: index) {
                        index += level + 2
                        state = .long(level: level, comment: true)
                        continue
                    }
                    return // a line comment
                }
                if current == UInt8(ascii: "["), let level = Self.longBracket(bytes, at: index) {
                    index += level + 2
                    state = .long(level: level, comment: false)
                    needsOperand = false
                    continue
                }
                if current == UInt8(ascii: "'") || current == UInt8(ascii: "\"") {
                    state = .shortString(quote: current, escaped: false, skipping: false)
                    needsOperand = false
                    index += 1
                    continue
                }
                if Self.isWordStart(current) {
                    let start = index
                    while index < count, Self.isWordStart(bytes[index]) || Self.isDigit(bytes[index]) { index += 1 }
                    let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< index]), as: UTF8.self)
                    if Self.opening.contains(word) { depth += 1 }
                    if Self.closing.contains(word) { depth -= 1 }
                    needsOperand = Self.operatorWords.contains(word)
                    continue
                }
                if Self.isDigit(current) || (current == UInt8(ascii: ".") && byte(1).map(Self.isDigit) == true) {
                    index += 1
                    while index < count {
                        let next = bytes[index]
                        if Self.isExponent(bytes[index - 1]), next == UInt8(ascii: "+") || next == UInt8(ascii: "-") {
                            index += 1
                        } else if Self.isWordStart(next) || Self.isDigit(next) || next == UInt8(ascii: ".") {
                            index += 1
                        } else {
                            break
                        }
                    }
                    needsOperand = false
                    continue
                }
                switch current {
                case UInt8(ascii: "("), UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; needsOperand = false
                case UInt8(ascii: ")"), UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; needsOperand = false
                case UInt8(ascii: ";"): needsOperand = false
                default: needsOperand = true // an operator, `=`, `,`, `.` or `:`
                }
                index += 1
            }
        }
    }

    /// The level of a long bracket `[==[` starting at `index`, or nil when there is none.
    private static func longBracket(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        var next = index + 1
        while next < bytes.count, bytes[next] == UInt8(ascii: "=") { next += 1 }
        guard next < bytes.count, bytes[next] == UInt8(ascii: "[") else { return nil }
        return next - index - 1
    }

    private static func string(_ state: State, escaped: Bool) -> State {
        guard case let .shortString(quote, _, skipping) = state else { return state }
        return .shortString(quote: quote, escaped: escaped, skipping: skipping)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09 ... 0x0D).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte)
    }

    private static func isExponent(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "p") || byte == UInt8(ascii: "P")
    }

    /// A letter, `_`, or a byte of a UTF-8 sequence (Lua reads those as it reads letters in names only
    /// when built to; elsewhere they are an error the compiler reports).
    private static func isWordStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A") ... UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_") || byte >= 0x80
    }
}
