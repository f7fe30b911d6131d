import Testing

/// README's "Seeing what happened" transcript, typed into a shell: what it prints (output, then any
/// error) must be what the README shows.
@Suite("README devtools")
struct ReadmeDevtoolsSpec {
    @Test("the transcript of :log, :history, :show and :goto prints as README shows it")
    func transcript() throws {
        let lines = try #require(ReadmeTourSpec.block(after: "## Seeing what happened", in: try ReadmeTourSpec.readme()))
        let shell = ShellTranscript()
        var printed: [String] = []
        var expected: [String] = []
        for line in lines {
            if line.hasPrefix("flux> ") {
                let result = shell.type(String(line.dropFirst(6)))
                printed.append(line)
                printed += (result.output + result.errors).split(separator: "\n").map(String.init)
            } else {
                expected.append(line)
            }
        }
        #expect(printed.filter { !$0.hasPrefix("flux> ") } == expected)
        #expect(lines.count > 20)
    }
}
