import Foundation
import Testing

/// The README's sessions transcript, run as shown: each `$ scripts/fluxsh …` a new process in the same
/// state folder, its lines piped in; what it prints must be what the README shows.
@Suite("README sessions")
struct ReadmeSessionSpec {
    @Test("quit, start again in the session: the README's transcript is what fluxsh prints")
    func transcript() throws {
        let lines = try #require(ReadmeTourSpec.block(after: "### Sessions", in: try ReadmeTourSpec.readme()))

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
