import CReadline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a ``CompletionProvider`` offers for the word before the cursor.
public enum Completions: Equatable, Sendable {
    /// Candidates for the word. Those starting with it are offered (so a provider may return every
    /// name it knows): a single one replaces the word and is followed by `terminator`; several
    /// are narrowed to their longest common prefix and listed on a second Tab.
    ///
    /// - Parameters:
    ///   - candidates: Whole words, e.g. `flux.dispatch` for the word `flux.di`.
    ///   - terminator: The ASCII character typed after a single match, or nil for none (after a
    ///     Lua field, where `(` or `.` comes next).
    case words(_ candidates: [String], terminator: Character? = " ")
    /// Paths, completed as readline completes file names (a directory gets a `/`); for the
    /// argument of `:load` or `:replay`.
    case files

    /// Nothing to offer: Tab rings the bell.
    public static let none = Completions.words([])
}

/// Computes what Tab offers.
///
/// Called by the line editor while a line is edited on a terminal.
///
/// - Parameters:
///   - line: The whole line, for context: a command name before a path, `flux` before a field.
///   - cursor: The cursor's position in `line`, as a UTF-8 byte offset.
///   - word: The text being completed, from the last of ``LineEditor/wordBreakCharacters`` before
///     the cursor up to the cursor: `flux.di` in `print(flux.di`, `:lo` in `:lo`.
/// - Returns: Candidates for `word`, or ``Completions/files`` for a path.
public typealias CompletionProvider = (_ line: String, _ cursor: Int, _ word: String) -> Completions

/// The bridge between readline's attempted-completion hook and the Swift provider.
///
/// Readline calls a C function pointer, which cannot carry context, so the provider of the line
/// being read is kept in ``provider``: there is one line editor reading at a time, on one thread.
enum CompletionBridge {
    /// The provider the hook calls; set by the line editor before each line.
    nonisolated(unsafe) static var provider: CompletionProvider?

    /// A C array of C strings as readline's completion functions return it.
    typealias MatchArray = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    /// Readline's `rl_attempted_completion_function`: the word is `text`, the line readline's buffer.
    static let hook: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> MatchArray? = { text, _, _ in
        // Never fall back to file names behind the provider's back; it asks with `.files`.
        fluxrl_set_attempted_completion_over(1)
        guard let provider = CompletionBridge.provider else { return nil }
        let line = CompletionBridge.currentLine()
        let word = text.map { String(cString: $0) } ?? ""
        return CompletionBridge.matches(line: line, cursor: Int(fluxrl_point()), word: word, provider: provider)
    }

    /// The line readline is editing.
    static func currentLine() -> String {
        guard let buffer = fluxrl_line_buffer() else { return "" }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(max(0, fluxrl_end())))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Asks `provider` and turns its answer into readline's match array (nil for no match),
    /// setting what readline appends after a single match.
    static func matches(line: String, cursor: Int, word: String, provider: CompletionProvider) -> MatchArray? {
        switch provider(line, cursor, word) {
        case .files:
            fluxrl_set_filename_completion_desired(1)
            return fluxrl_filename_matches(word)
        case let .words(candidates, terminator):
            fluxrl_set_completion_append_character(Int32(terminator?.asciiValue ?? 0))
            return matchList(for: word, candidates: candidates).map(cArray)
        }
    }

    /// The strings of readline's match array: the text replacing the word (the single match, or
    /// the longest common prefix of several), then each match once, in the provider's order
    /// (readline sorts them for display). Nil when no candidate starts with `word`.
    static func matchList(for word: String, candidates: [String]) -> [String]? {
        var seen = Set<String>()
        let matches = candidates.filter { $0.utf8.starts(with: word.utf8) && seen.insert($0).inserted }
        switch matches.count {
        case 0: return nil
        case 1: return matches
        default: return [commonPrefix(of: matches)] + matches
        }
    }

    /// The longest prefix all `strings` share, whole Unicode scalars only.
    static func commonPrefix(of strings: [String]) -> String {
        guard var prefix = strings.first.map({ Array($0.unicodeScalars) }) else { return "" }
        for string in strings.dropFirst() {
            let shared = zip(prefix, string.unicodeScalars).prefix { $0 == $1 }.count
            prefix.removeSubrange(shared...)
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: prefix)
        return result
    }

    /// `strings` as a NULL-terminated array of `malloc`ed C strings: readline frees both.
    static func cArray(_ strings: [String]) -> MatchArray {
        let raw = malloc((strings.count + 1) * MemoryLayout<UnsafeMutablePointer<CChar>?>.stride)!
        let result = raw.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            result[index] = strdup(string)
        }
        result[strings.count] = nil
        return result
    }
}
