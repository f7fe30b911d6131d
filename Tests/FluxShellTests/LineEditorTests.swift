import Foundation
import Testing
@testable import FluxShell

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The line editor's specs. Serialized: readline's completion state and the SIGINT handler are
/// process-wide, and the nested suites in the other LineEditor*Tests files share them.
@Suite("Line editor", .serialized)
struct LineEditorTests {
    @Test("piped lines are read as typed: no newline, \\r\\n handled, a last line without newline, then nil for good")
    func pipedLines() throws {
        let pipe = try TestPipe(writing: "print(1)\n\n:load x.lua\r\nlast")
        let editor = LineEditor(input: pipe.readEnd, history: nil)
        #expect(!editor.isInteractive)
        var lines: [String] = []
        while let line = editor.readLine(prompt: "flux> ") { lines.append(line) }
        #expect(lines == ["print(1)", "", ":load x.lua", "last"])
        #expect(editor.readLine(prompt: ">> ") == nil)
    }

    @Test("a line longer than one read, with multi-byte characters across the split, arrives whole")
    func longPipedLine() throws {
        let long = String(repeating: "é", count: 5000)  // 10,000 bytes: several reads
        let pipe = try TestPipe(writing: long + "\nnext\n")
        let editor = LineEditor(input: pipe.readEnd, history: nil)
        #expect(editor.readLine(prompt: "") == long)
        #expect(editor.readLine(prompt: "") == "next")
        #expect(editor.readLine(prompt: "") == nil)
    }

    @Test("lines written while the editor waits are read as they come")
    func pipedLinesAsWritten() throws {
        let pipe = try TestPipe(writing: "")
        let editor = LineEditor(input: pipe.readEnd, history: nil)
        let writer = pipe.takeWriteEnd()
        Thread.detachNewThread {
            usleep(50_000)
            _ = "late\n".withCString { write(writer, $0, strlen($0)) }
            close(writer)
        }
        #expect(editor.readLine(prompt: "") == "late")
        #expect(editor.readLine(prompt: "") == nil)
    }

    @Test("on piped input, entries are not added to the history: running a script leaves no trace")
    func pipedInputKeepsNoHistory() throws {
        let pipe = try TestPipe(writing: "x = 1\n")
        let history = LineHistory(path: nil)
        let editor = LineEditor(input: pipe.readEnd, history: history)
        let line = try #require(editor.readLine(prompt: ""))
        editor.addHistory(line)
        #expect(history.entries.isEmpty)
    }
}

/// A pipe preloaded with `text`; the write end is closed unless taken.
final class TestPipe {
    let readEnd: Int32
    private var writeEnd: Int32

    init(writing text: String) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        readEnd = fds[0]
        writeEnd = fds[1]
        let bytes = Array(text.utf8)
        if !bytes.isEmpty {
            // More than a pipe holds is written from another thread.
            let fd = writeEnd
            writeEnd = -1
            Thread.detachNewThread {
                var offset = 0
                while offset < bytes.count {
                    let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    offset += count
                }
                close(fd)
            }
        }
    }

    /// The write end, now the caller's to close.
    func takeWriteEnd() -> Int32 {
        defer { writeEnd = -1 }
        return writeEnd
    }

    deinit {
        close(readEnd)
        if writeEnd >= 0 { close(writeEnd) }
    }
}
