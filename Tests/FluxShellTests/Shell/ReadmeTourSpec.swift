import Foundation
import Testing

/// The README's five-minute tour, typed into `fluxsh` line by line: what it prints must be what the
/// README shows, or the manual is wrong.
@Suite("README tour")
struct ReadmeTourSpec {
    @Test("the tour's input, piped into fluxsh, prints the tour's output")
    func tour() throws {
        let transcript = try #require(Self.block(after: "## A five-minute tour", in: try Self.readme()), "README has no tour block")

        var input: [String] = [], expected: [String] = []
        for line in transcript {
            if line.hasPrefix("flux> ") { input.append(String(line.dropFirst(6))) }
            else if line.hasPrefix(">> ") { input.append(String(line.dropFirst(3))) }
            else { expected.append(line) }
        }
        #expect(input.count > 10)
        let result = try FluxshProcess.run(["--no-color"], input: input.joined(separator: "\n") + "\n",
                                           environment: ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "COLUMNS": "80"])
        #expect(result.errors == "")
        #expect(result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                == expected + [""])
    }

    /// The README's text.
    static func readme() throws -> String {
        let readme = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        return try String(contentsOf: readme, encoding: .utf8)
    }

    /// The lines of the first code block after `heading`.
    static func block(after heading: String, in readme: String) -> [String]? {
        guard let section = readme.range(of: heading),
              let open = readme.range(of: "```\n", range: section.upperBound..<readme.endIndex),
              let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex) else { return nil }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
