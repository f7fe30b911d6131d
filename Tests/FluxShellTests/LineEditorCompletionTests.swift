import CReadline
import Foundation
import Testing
@testable import FluxShell

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LineEditorTests {
    @Suite("Completion")
    struct Completion {
        /// What readline's match array holds, freed as readline would.
        private func strings(_ array: CompletionBridge.MatchArray?) -> [String]? {
            guard let array else { return nil }
            var result: [String] = []
            var index = 0
            while let string = array[index] {
                result.append(String(cString: string))
                free(string)
                index += 1
            }
            free(array)
            return result
        }

        /// Runs readline's hook the way Tab does: `line` in readline's buffer, the cursor at its
        /// end, the word found with the editor's word-break characters.
        private func tab(_ line: String, provider: @escaping CompletionProvider) -> [String]? {
            rl_replace_line(line, 0)
            fluxrl_set_point(fluxrl_end())
            let breaks = Set(LineEditor.wordBreakCharacters.utf8)
            let bytes = Array(line.utf8)
            let start = (bytes.lastIndex { breaks.contains($0) } ?? -1) + 1
            let word = String(decoding: bytes[start...], as: UTF8.self)
            CompletionBridge.provider = provider
            defer { CompletionBridge.provider = nil }
            return strings(CompletionBridge.hook(word, Int32(start), Int32(bytes.count)))
        }

        @Test("Tab calls the provider with the whole line, the cursor's byte offset and the word; a single match replaces the word")
        func hookCallsProvider() throws {
            var calls: [(line: String, cursor: Int, word: String)] = []
            let matches = tab("x = 'é' .. flux.di") { line, cursor, word in
                calls.append((line, cursor, word))
                return .words(["flux.dispatch", "flux.state", "print"])
            }
            #expect(matches == ["flux.dispatch"])
            let call = try #require(calls.first)
            #expect(calls.count == 1)
            #expect(call.line == "x = 'é' .. flux.di")
            #expect(call.cursor == 19)  // é is two bytes
            #expect(call.word == "flux.di")
            #expect(fluxrl_attempted_completion_over() == 1)
            #expect(fluxrl_completion_append_character() == 0x20)
        }

        @Test("`.` and `:` do not break words, so fields and commands complete whole; brackets and spaces do")
        func wordBreaks() {
            let breaks = LineEditor.wordBreakCharacters
            for character in ".:/~-_" { #expect(!breaks.contains(character)) }
            for character in " \t(,=[{\"'" { #expect(breaks.contains(character)) }
            var words: [String] = []
            _ = tab("print(flux.st") { _, _, word in words.append(word); return .none }
            _ = tab(":lo") { _, _, word in words.append(word); return .none }
            #expect(words == ["flux.st", ":lo"])
        }

        @Test("several matches → their longest common prefix first, then each match once, in the provider's order")
        func severalMatches() {
            let matches = tab(":re") { _, _, _ in .words([":replay", ":redo", ":quit", ":redo"]) }
            #expect(matches == [":re", ":replay", ":redo"])
        }

        @Test("no candidate starting with the word → no match, and no fallback to file names")
        func noMatch() {
            #expect(tab("zz") { _, _, _ in .words(["flux"]) } == nil)
            #expect(fluxrl_attempted_completion_over() == 1)
        }

        @Test("a match with no terminator is not followed by a space")
        func noTerminator() {
            #expect(tab("flux.sto") { _, _, _ in .words(["flux.stores"], terminator: nil) } == ["flux.stores"])
            #expect(fluxrl_completion_append_character() == 0)
        }

        @Test("`.files` completes paths, as readline completes file names")
        func files() throws {
            let directory = NSTemporaryDirectory() + "fluxsh-completion-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            for name in ["alpha.lua", "alpine.txt", "beta.lua"] {
                _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: Data())
            }
            var line = ""
            let matches = try #require(tab(":load \(directory)/alp") { whole, _, _ in line = whole; return .files })
            #expect(line == ":load \(directory)/alp")
            #expect(matches.first == "\(directory)/alp")
            #expect(Set(matches.dropFirst()) == ["\(directory)/alpha.lua", "\(directory)/alpine.txt"])
            #expect(fluxrl_filename_completion_desired() == 1)
        }

        @Test("with no provider Tab offers nothing")
        func noProvider() {
            CompletionBridge.provider = nil
            rl_replace_line("flux", 0)
            #expect(CompletionBridge.hook("flux", 0, 4) == nil)
        }

        @Test("the match list keeps whole characters when the matches differ inside one")
        func prefixOfWholeCharacters() {
            // "é" and "è" share their first UTF-8 byte; the prefix must not end in half of it.
            #expect(CompletionBridge.matchList(for: "caf", candidates: ["café", "cafè"]) == ["caf", "café", "cafè"])
            #expect(CompletionBridge.commonPrefix(of: ["flux.dispatch", "flux.display"]) == "flux.disp")
        }
    }
}
