import Testing
@testable import FluxShell

@Suite("Reading a chunk line by line")
struct LuaChunkScannerTests {
    private func unfinished(_ lines: String...) -> Bool {
        var scanner = LuaChunkScanner()
        for line in lines { scanner.scan(line) }
        return scanner.isUnfinished
    }

    @Test("open blocks, brackets, long strings and comments, and a trailing operator are unfinished")
    func unfinishedChunks() {
        #expect(unfinished("function twice(x)"))
        #expect(unfinished("for i = 1, 3 do", "print(i)"))
        #expect(unfinished("if x then", "elseif y then"))
        #expect(unfinished("repeat"))
        #expect(unfinished("t = {", "1,"))
        #expect(unfinished("s = [==[", "]]"))
        #expect(unfinished("--[[ a comment", "still"))
        #expect(unfinished("x = 1 +"))
        #expect(unfinished("x = a and"))
        #expect(unfinished(#"s = "a\"#))
        #expect(unfinished(#"s = "a\z"#, "   "))
    }

    @Test("closed ones may be complete; strings and comments hide keywords and brackets")
    func finishedChunks() {
        #expect(!unfinished("function twice(x)", "return 2 * x", "end"))
        #expect(!unfinished("while true do", "break", "end"))
        #expect(!unfinished("repeat", "x = x - 1", "until x == 0"))
        #expect(!unfinished("s = [==[", "]] end (", "]==]"))
        #expect(!unfinished(#"s = "function (" -- do {"#))
        #expect(!unfinished("--[==[ if", "]==] x = 1"))
        #expect(!unfinished(#"s = 'it\'s' .. "a\"b""#))
        #expect(!unfinished("x = 1e-5", "y = 0x1p+4"))
        #expect(!unfinished(#"s = "a\"#, #"b""#))
    }

    @Test("a pasted block arriving as one line is read line by line: a comment ends at its newline")
    func pastedBlock() {
        #expect(!unfinished("function f() -- a comment\n  return 1\nend"))
        #expect(unfinished("x = 1 -- end\nfunction f()"))
    }

    @Test("a short string cut by a newline is an error for the compiler to report, not more input")
    func brokenString() {
        #expect(!unfinished(#"s = "abc"#, "function ("))
    }
}
