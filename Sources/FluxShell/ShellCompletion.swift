import FluxLua
import Foundation

extension Shell {
    /// What Tab offers for `word`, the text before the cursor in `line`: command names after a leading
    /// colon; store, action, view, plugin names or paths where a command takes them; otherwise Lua
    /// globals and the fields of the table a dotted name reaches (`flux.di` → `flux.dispatch`).
    ///
    /// - Parameter cursor: The cursor's position in `line` as a UTF-8 byte offset.
    public func completions(line: String, cursor: Int, word: String) -> Completions {
        let before = String(decoding: line.utf8.prefix(cursor), as: UTF8.self)
        let lead = before.drop(while: \.isBlank)
        guard lead.hasPrefix(":") else {
            let context = String(decoding: before.utf8.dropLast(word.utf8.count), as: UTF8.self)
            return nameArgument(after: context) ?? .words(luaNames(word), terminator: nil)
        }
        let words = lead.split(whereSeparator: \.isBlank)
        let typingName = !lead.contains(where: \.isBlank)
        if typingName { return .words(Self.commands.map { ":" + $0.name }) }
        guard let command = Self.command(named: String(words[0])) else { return .none }
        // A payload: the fields of the action named by the word before it, once its `{` is typed.
        if let payload = command.completes.firstIndex(of: .payload), payload >= 1, words.count > payload,
           let brace = lead.firstIndex(of: "{") {
            // `name = ` whole: a field is always given a value, and a second Tab must not offer it again.
            return .words(payloadFieldNames(action: String(words[payload]), typed: String(lead[brace...]), word: word)
                .map { $0 + " = " }, terminator: nil)
        }
        // The argument being typed: the words after the command, counting the one under the cursor.
        let position = words.count - 1 - (word.isEmpty ? 0 : 1)
        guard position < command.completes.count else { return .none }
        switch command.completes[position] {
        case .store: return .words(dispatcher.stores.map(\.name))
        case .action: return .words(dispatcher.registry.names)
        case .view: return .words(host.views.names)
        case .watchedView: return .words(watches.views)
        case .plugin: return .words(host.plugins.map(\.name))
        case .file: return .files
        case .payload: return .none
        case .topic: return .words(Self.commands.map(\.name) + ["flux"] + FluxReference.functions.map { "flux." + $0.name })
        case let .word(words): return .words(words)
        }
    }

    /// The names a `flux` function takes as its first argument, when `context` ends with its call's opening
    /// quote: stores in `flux.state("`, actions in `flux.dispatch("`, views in `flux.render("`. A single
    /// match is closed with the quote. Nil elsewhere.
    private func nameArgument(after context: String) -> Completions? {
        guard let match = Self.nameArgumentCall.firstMatch(in: context, range: NSRange(context.startIndex..., in: context)),
              let function = Range(match.range(at: 1), in: context).map({ String(context[$0]) }),
              let quote = Range(match.range(at: 2), in: context).map({ context[$0].first! }) else { return nil }
        switch function {
        case "state", "subscribe", "actions": return .words(dispatcher.stores.map(\.name), terminator: quote)
        case "dispatch": return .words(dispatcher.registry.names, terminator: quote)
        case "render", "model", "watch": return .words(host.views.names, terminator: quote)
        default: return nil
        }
    }

    /// `flux.NAME(` and a quote, at the end of the text before the word being completed.
    private static let nameArgumentCall = try! NSRegularExpression(pattern: #"\bflux\.(\w+)\s*\(\s*(["'])$"#)

    /// The payload fields of `action` not yet given in `typed` (the payload so far, from its `{`).
    private func payloadFieldNames(action: String, typed: String, word: String) -> [String] {
        guard let fields = host.payloadFields(of: action) else { return [] }
        let given = typed.dropLast(word.count)
        return fields.fields.map(\.name).filter { name in
            given.range(of: "\\b\(NSRegularExpression.escapedPattern(for: name))\\s*=", options: .regularExpression) == nil
        }
    }

    /// Lua globals and keywords, or the fields of the table `word`'s dotted prefix names.
    private func luaNames(_ word: String) -> [String] {
        (try? host.vm.call(complete, results: 1, arguments: { lua in lua.push(word) }) { lua, range in
            try lua.decode([String].self, at: range.lowerBound)
        }) ?? []
    }
}
