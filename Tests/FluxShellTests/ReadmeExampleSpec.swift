import Foundation
import Testing

// The package in Tests/ReadmeExample builds the README's Swift snippets against the library products,
// as an app would; this spec keeps its source the README's text, so what is built is what is written.

@Suite("The README's Swift snippets as an app")
struct ReadmeExampleSpec {
    @Test("Tests/ReadmeExample's source is the snippets of \"Writing a feature in Swift\", in order")
    func sameAsReadme() throws {
        let readme = try ReadmeTourSpec.readme()
        let section = try #require(Self.section("## Writing a feature in Swift", in: readme))
        let snippets = Self.swiftBlocks(in: section)
        #expect(snippets.count == 3)
        #expect(snippets.last?.contains("import FluxShell") == true)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("../ReadmeExample/Sources/ReadmeExample/main.swift")
            .standardized, encoding: .utf8)
        #expect(source == snippets.joined(separator: "\n"))
    }

    /// The text from `heading` to the next heading of its level.
    static func section(_ heading: String, in readme: String) -> Substring? {
        guard let start = readme.range(of: heading + "\n") else { return nil }
        let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
        return readme[start.upperBound..<end]
    }

    /// Each ```swift block's lines, each ending in a newline, without the indentation of its fence.
    static func swiftBlocks(in text: Substring) -> [String] {
        var blocks: [String] = []
        var current: (indent: String, lines: String)?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let block = current {
                if line == block.indent + "```" {
                    blocks.append(block.lines)
                    current = nil
                } else {
                    current?.lines += (line.hasPrefix(block.indent) ? line.dropFirst(block.indent.count) : line) + "\n"
                }
            } else if line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = (String(line.prefix { $0 == " " }), "")
            }
        }
        return blocks
    }
}
