import Foundation
import Testing

/// The README's sessions transcript, run as shown: each `$ scripts/fluxsh …` a new process in the same
/// state folder, its lines piped in; what it prints must be what the README shows.
@Suite("README sessions")
struct ReadmeSessionSpec {
    @Test("quit, start again in the session: the README's transcript is what fluxsh prints")
    func transcript() throws {
        let readme = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "### Sessions"))
        let open = try #require(text.range(of: "```\n", range: section.upperBound ..< text.endIndex))
        let close = try #require(text.range(of: "\n```", range: open.upperBound ..< text.endIndex))
        let lines = text[open.upperBound ..< close.lowerBound].split(separator: "\n").map(String.init)

        var runs: [(arguments: [String], input: [String], expected: [String])] = []
        for line in lines {
            if line.hasPrefix("$ scripts/fluxsh") {
                runs.append((line.split(separator: " ").dropFirst(2).map(String.init), [], []))
            } else if line.hasPrefix("flux> ") {
                runs[runs.count - 1].input.append(String(line.dropFirst(6)))
            } else {
                runs[runs.count - 1].expected.append(line)
            }
        }
        #expect(runs.count == 2)
        let state = temporaryPath("readme-sessions")
        defer { try? FileManager.default.removeItem(atPath: state) }
        for run in runs {
            let result = try FluxshProcess.run(["--no-color"] + run.arguments, input: run.input.joined(separator: "\n") + "\n",
                                               environment: ["XDG_STATE_HOME": state])
            #expect(result.errors == "")
            #expect(result.output == run.expected.map { $0 + "\n" }.joined())
        }
    }
}
