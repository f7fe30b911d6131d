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
            return nameArgument(after: context) ?? payloadArgument(after: context, word: word)
                ?? .words(luaNames(word), terminator: nil)
        }
        let words = lead.split(whereSeparator: \.isBlank)
        let typingName = !lead.contains(where: \.isBlank)
        if typingName { return .words(Self.commands.map { ":" + $0.name } + host.pluginCommands.map { ":" + $0.name }) }
        guard let command = Self.command(named: String(words[0])) else {
            return pluginCommandCompletions(named: String(words[0].dropFirst()), typed: lead, word: word)
        }
        // A payload: the fields of the action named by the word before it, once its `{` is typed.
        if let payload = command.completes.firstIndex(of: .payload), payload >= 1, words.count > payload,
           let brace = lead.firstIndex(of: "{") {
            return payloadFields(action: String(words[payload]), typed: String(lead[brace...]), word: word)
        }
        // A plugin's name is the whole text after the command and may hold blanks: what Tab replaces is
        // the last word, so each name that starts with the text typed is offered from that word on.
        if command.completes == [.plugin] {
            let typed = String(lead.dropFirst(words[0].count).drop(while: \.isBlank))
            let before = typed.dropLast(word.count)
            return .words(host.plugins.map(\.name).filter { $0.hasPrefix(before) }.map { String($0.dropFirst(before.count)) })
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
        case .topic: return .words(Self.commands.map(\.name) + host.pluginCommands.map(\.name) + ["flux"] + FluxReference.functions.map { "flux." + $0.name })
        case let .word(words): return .words(words)
        }
    }

    /// The names a `flux` function takes as its first argument, when `context` ends with its call's opening
    /// quote: stores in `flux.state("`, actions in `flux.dispatch("`, views in `flux.render("`. A single
    /// match is closed with the quote. Nil elsewhere.
    private func nameArgument(after context: String) -> Completions? {
        // `flux.NAME(` and a quote, at the end.
        guard let match = context.firstMatch(of: #/\bflux\.(\w+)\s*\(\s*(["'])$/#), let quote = match.output.2.first else {
            return nil
        }
        switch match.output.1 {
        case "state", "subscribe", "actions": return .words(dispatcher.stores.map(\.name), terminator: quote)
        case "dispatch": return .words(dispatcher.registry.names, terminator: quote)
        case "render", "model", "watch": return .words(host.views.names, terminator: quote)
        default: return nil
        }
    }

    /// The payload fields of the action `flux.dispatch("NAME", {` names, when `context` ends inside that table.
    private func payloadArgument(after context: String, word: String) -> Completions? {
        // `flux.dispatch("NAME", {` and the fields typed since, at the end.
        guard let match = context.firstMatch(of: #/\bflux\.dispatch\s*\(\s*["']([^"']+)["']\s*,\s*(\{[^{}]*)$/#) else {
            return nil
        }
        return payloadFields(action: String(match.output.1), typed: match.output.2 + word, word: word)
    }

    /// The payload fields of `action` not yet given in `typed` (the payload so far, from its `{`), each as
    /// `name = ` whole: a field is always given a value, and a second Tab must not offer it again.
    private func payloadFields(action: String, typed: String, word: String) -> Completions {
        guard let fields = host.payloadFields(of: action) else { return .words([], terminator: nil) }
        let given = typed.dropLast(word.count)
        return .words(fields.fields.map(\.name).filter { name in
            given.range(of: "\\b\(NSRegularExpression.escapedPattern(for: name))\\s*=", options: .regularExpression) == nil
        }.map { $0 + " = " }, terminator: nil)
    }

    /// Lua globals and keywords, or the fields of the table `word`'s dotted prefix names.
    private func luaNames(_ word: String) -> [String] {
        (try? host.vm.call(complete, results: 1, arguments: { lua in lua.push(word) }) { lua, range in
            try lua.decode([String].self, at: range.lowerBound)
        }) ?? []
    }
}
