import Foundation
import Testing

/// One bad input of the corpus: what is typed (or the file a command reads), the words the error must
/// contain, and what the stores must hold afterwards.
struct BadInput: Sendable, CustomTestStringConvertible {
    /// The areas the corpus covers.
    enum Category: String, Sendable, CaseIterable {
        /// `flux.*` with missing, extra, nil and wrong-typed arguments.
        case arguments
        /// Unknown store, action, view and plugin names.
        case names
        /// Payloads that do not decode: wrong types, missing and extra fields.
        case payloads
        /// Cyclic, deep, huge and mixed tables; bad strings; NaN, infinities, out-of-range numbers.
        case values
        /// Errors thrown by store handlers, subscribers, view providers, watchers and middleware.
        case callbacks
        /// Dispatch, subscribe, undo and coroutines from inside callbacks; `waitFor` cycles.
        case reentrancy
        /// Scripts that never stop or never stop allocating.
        case runaway
        /// `:` commands with malformed arguments.
        case commands
        /// `:load` and `:replay` of files that are missing, folders, binary or malformed.
        case files
        /// Scripts that keep references, call metamethods by hand, clear the hook, or let the collector
        /// run at the worst moment.
        case hostile
    }

    /// What the shell is given.
    enum Input: Sendable {
        /// Lua source, as typed at the prompt.
        case lua(String)
        /// A `:` command line.
        case command(String)
        /// A command line reading a file made for the case: `{path}` in it is replaced by the file's path.
        case file(Fixture, command: String)
    }

    /// A file a case makes before it runs.
    enum Fixture: Sendable {
        /// A path where nothing is.
        case missing
        /// An empty folder.
        case directory
        /// A file holding these bytes.
        case bytes([UInt8])
        /// A file holding this text.
        case text(String)
        /// A folder holding these files (name, text).
        case folder([String: String])
    }

    /// What every store must hold afterwards.
    enum Outcome: Sendable {
        /// Exactly what it held before: the input changed nothing.
        case unchanged
        /// What it would hold had these inputs been given instead (each of them must succeed): the part
        /// of the input that was valid took effect, and `why` says why a user expects that.
        case asIf([String], why: String)
        /// Some valid steps ran before the input was stopped and cannot be told apart from a user's own;
        /// only the error and a working shell afterwards are checked. `why` says why.
        case unpredictable(why: String)
    }

    var category: Category
    var title: String?
    var setup: [String] = []
    var input: Input
    /// Words the reported error must contain.
    var fragment: String
    var outcome: Outcome = .unchanged
    /// Whether the shell reports the input as failed (false: it ran, and an error nobody could catch
    /// was reported on the side, as a subscriber's is).
    var fails = true

    var testDescription: String {
        if let title { return title }
        let text: String
        switch input {
        case let .lua(source): text = source
        case let .command(line): text = line
        case let .file(fixture, command): text = command.replacingOccurrences(of: "{path}", with: fixture.label)
        }
        let line = text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return line.count > 90 ? String(line.prefix(87)) + "…" : line
    }
}

extension BadInput.Fixture {
    var label: String {
        switch self {
        case .missing: return "<missing file>"
        case .directory: return "<folder>"
        case let .bytes(bytes): return "<\(bytes.count) bytes>"
        case let .text(text): return "<\(text.split(separator: "\n").first.map(String.init)?.prefix(40) ?? "empty file")>"
        case let .folder(files): return "<folder: \(files.keys.sorted().joined(separator: ", "))>"
        }
    }
}

// MARK: - Building cases tersely

/// Lua `source` fails with an error containing `fragment` and changes nothing.
func lua(_ category: BadInput.Category, _ source: String, _ fragment: String, setup: [String] = [],
         outcome: BadInput.Outcome = .unchanged, fails: Bool = true, title: String? = nil) -> BadInput {
    BadInput(category: category, title: title, setup: setup, input: .lua(source), fragment: fragment, outcome: outcome, fails: fails)
}

/// The command `line` fails with an error containing `fragment` and changes nothing.
func command(_ category: BadInput.Category, _ line: String, _ fragment: String, setup: [String] = [],
             outcome: BadInput.Outcome = .unchanged, fails: Bool = true, title: String? = nil) -> BadInput {
    BadInput(category: category, title: title, setup: setup, input: .command(line), fragment: fragment, outcome: outcome, fails: fails)
}

/// `line`, with `{path}` the path of `fixture`, fails with an error containing `fragment`.
func file(_ category: BadInput.Category, _ fixture: BadInput.Fixture, _ line: String, _ fragment: String,
          setup: [String] = [], outcome: BadInput.Outcome = .unchanged, title: String? = nil) -> BadInput {
    BadInput(category: category, title: title, setup: setup, input: .file(fixture, command: line), fragment: fragment, outcome: outcome)
}
