import Foundation
import Testing

/// Long chunks and long lines piped in run as typed: whole, and with their errors where they are.
@Suite("Long chunks and lines on fluxsh's input")
struct PastedChunkSpec {
    @Test("a 20,000-line chunk runs once, whole; what follows it runs after")
    func longChunk() throws {
        let chunk = "t = {\n" + (1 ... 20_000).map { "  \($0),\n" }.joined() + "}\nprint(#t, t[20000])\n"
        let result = try FluxshProcess.run([], input: chunk + "print('after')\n")
        #expect(result.errors == "")
        #expect(result.output == "20000\t20000\nafter\n")
    }

    @Test("a syntax error inside an unfinished short chunk is reported at once, as lua does; the next line runs")
    func errorAtOnce() throws {
        let result = try FluxshProcess.run([], input: "function f()\n  x = = 1\nprint('next')\nend\n")
        #expect(result.errors.hasPrefix("stdin:2: unexpected symbol near '='"))
        #expect(result.output == "next\n")
    }

    @Test("a syntax error deep in a long unfinished chunk is still reported, with its line")
    func errorInLongChunk() throws {
        let body = (1 ... 5_000).map { "  x = \($0)\n" }.joined()
        let result = try FluxshProcess.run([], input: "function f()\n" + body + "  x = = 1\n" + body + "end\n")
        #expect(result.errors.hasPrefix("stdin:5002: unexpected symbol near '='"))
    }

    @Test("a 4 MB line runs")
    func longLine() throws {
        let line = "s = '" + String(repeating: "a", count: 4_000_000) + "' print(#s)\n"
        let result = try FluxshProcess.run([], input: line)
        #expect(result.output == "4000000\n")
    }
}
