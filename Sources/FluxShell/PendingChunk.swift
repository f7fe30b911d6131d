/// The lines of a chunk read so far at the REPL, and whether compiling it now could tell anything.
///
/// Compiling a chunk costs time in proportion to its length, so compiling it again after every
/// line would make a pasted chunk of n lines cost n² time. Instead a ``LuaChunkScanner`` reads each
/// line once; the chunk is compiled when the scanner says it may be complete, and otherwise only
/// while it is short (so a syntax error in a typed chunk shows at once, as in `lua`) or when it has
/// grown by half since it was last compiled (so one in a long pasted chunk still shows).
///
/// ```swift
/// var pending = PendingChunk()
/// pending.append("function twice(x)")   // pending.isWorthCompiling == false
/// ```
struct PendingChunk {
    /// Up to this many bytes a chunk is compiled after every line.
    static let shortLength = 16 * 1024

    /// The lines so far, joined with newlines; nil before the first.
    private(set) var text: String?
    /// The chunk's bytes, when a line was not UTF-8 (`text` then holds U+FFFD in their place); nil while
    /// `text` holds them exactly. Lua compiles these: a string literal keeps its bytes.
    private(set) var bytes: [UInt8]?
    private var scanner = LuaChunkScanner()
    /// The chunk's length when it was last compiled and found unfinished.
    private var compiledLength = 0

    /// Whether a chunk has been started and not finished.
    var isStarted: Bool { text != nil }

    /// Adds a line (without its newline); `lineBytes` are its own bytes when they are not UTF-8.
    mutating func append(_ line: String, bytes lineBytes: [UInt8]? = nil) {
        if let lineBytes {
            if bytes == nil { bytes = text.map { Array($0.utf8) + [UInt8(ascii: "\n")] } ?? [] } else { bytes!.append(UInt8(ascii: "\n")) }
            bytes!.append(contentsOf: lineBytes)
        } else if bytes != nil {
            bytes!.append(UInt8(ascii: "\n"))
            bytes!.append(contentsOf: line.utf8)
        }
        if text == nil {
            text = line
        } else {
            text!.append("\n")
            text!.append(line)
        }
        scanner.scan(line)
    }

    /// Whether to compile the chunk now: it may be complete, or compiling it is cheap enough.
    var isWorthCompiling: Bool {
        guard let text else { return false }
        let length = text.utf8.count
        return !scanner.isUnfinished || length <= Self.shortLength || length >= compiledLength + compiledLength / 2
    }

    /// Notes that the compiler found the chunk unfinished: more lines are needed.
    mutating func compiledUnfinished() {
        compiledLength = text?.utf8.count ?? 0
    }

    /// Drops the chunk.
    mutating func clear() {
        self = PendingChunk()
    }
}

extension Shell.Compiled {
    /// Whether the compiler asked for more lines.
    var isIncomplete: Bool {
        if case .incomplete = self { true } else { false }
    }
}
