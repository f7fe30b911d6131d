import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `:record` and its file: never a silent overwrite, a link stays a link, a FIFO stays a FIFO, and a
/// full disk stops the recording with every store intact.
@Suite(":record and the file it writes")
struct RecordFileSpec {
    private let folder: String

    init() throws {
        folder = temporaryPath("record")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    private func lines(_ path: String) throws -> [Substring] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    }

    private func recordTwoMoves(_ shell: ShellTranscript, _ command: String) -> String {
        let started = shell.type(command)
        shell.type(":dispatch ticTacToe.placeToken {index = 4}")
        shell.type(":dispatch ticTacToe.placeToken {index = 0}")
        shell.type(":record")
        return started.output + started.errors
    }

    @Test(":record on a file that holds a log refuses, says how to overwrite or append, and leaves it as it was")
    func existingFile() throws {
        let path = folder + "/game.jsonl"
        try "{\"name\":\"ticTacToe.reset\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let shell = ShellTranscript()
        let refused = shell.type(":record \(path)")
        #expect(!refused.ok)
        #expect(refused.errors == "\(path) is not empty: :record! \(path) replaces it, :record+ \(path) appends to it\n")
        #expect(try lines(path) == [#"{"name":"ticTacToe.reset"}"#, ""])
        shell.type(":dispatch ticTacToe.placeToken {index = 8}")
        #expect(try lines(path).count == 2, "nothing is recorded after a refusal")

        // An empty file is no log: it is recorded into.
        let empty = folder + "/empty.jsonl"
        try #require(FileManager.default.createFile(atPath: empty, contents: nil))
        #expect(recordTwoMoves(shell, ":record \(empty)").hasPrefix("recording to"))
        #expect(try lines(empty).count == 3)
    }

    @Test(":record, :record! and :record+ on a folder say it is one, not that it holds a log to replace")
    func folderPath() throws {
        let shell = ShellTranscript()
        for command in [":record", ":record!", ":record+"] {
            let refused = shell.type("\(command) \(folder)")
            #expect(!refused.ok)
            #expect(refused.errors == "cannot write \(folder): Is a directory\n", "\(command)")
        }
        #expect(shell.print(":dispatch ticTacToe.placeToken {index = 4}") == "", "no recording was started")
    }

    @Test(":record+ appends to a log; :record! replaces it when recording stops, and not before")
    func appendAndReplace() throws {
        let path = folder + "/game.jsonl"
        let shell = ShellTranscript()
        _ = recordTwoMoves(shell, ":record \(path)")
        _ = recordTwoMoves(ShellTranscript(), ":record+ \(path)")
        #expect(try lines(path).count == 5)

        let replacing = ShellTranscript()
        replacing.type(":record! \(path)")
        replacing.type(":dispatch ticTacToe.placeToken {index = 8}")
        #expect(try lines(path).count == 5, "the old log stays whole while the new one is written")
        #expect(replacing.print(":record") == "recorded 1 entries to \(path)\n")
        #expect(try lines(path).count == 2)
        let fresh = ShellTranscript()
        #expect(fresh.print(":replay \(path)") == "replayed 1 entry from \(path)\n")
    }

    @Test(":record! through a symbolic link replaces the file it names; the link stays a link")
    func symbolicLink() throws {
        let target = folder + "/real.jsonl", link = folder + "/link.jsonl"
        try "old\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.jsonl")
        _ = recordTwoMoves(ShellTranscript(), ":record! \(link)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.jsonl")
        #expect(try lines(target).count == 3)
        #expect(try !String(contentsOfFile: target, encoding: .utf8).contains("old"))
    }

    @Test(":record to a FIFO writes into it and leaves it a FIFO; with no reader it is an error, not a hang")
    func fifo() throws {
        let path = folder + "/pipe"
        #expect(mkfifo(path, 0o600) == 0)
        let shell = ShellTranscript()
        let unread = shell.type(":record! \(path)")
        #expect(unread.errors.hasPrefix("cannot write \(path): No such device or address"))

        let reader = open(path, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        #expect(reader >= 0)
        _ = recordTwoMoves(shell, ":record! \(path)")
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(reader, &buffer, buffer.count)
        #expect(String(decoding: buffer[..<max(count, 0)], as: UTF8.self).split(separator: "\n").count == 2)
        #expect(lstatKind(path) == S_IFIFO)
    }

    private func lstatKind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test("a write that fails (a device that is full) stops the recording with an error naming the file; the shell goes on")
    func deviceFull() throws {
        // Through a link: a writer that replaced what it writes would replace the link, not the device.
        let path = folder + "/full"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
        let shell = ShellTranscript()
        #expect(shell.type(":record \(path)").ok)
        let failed = shell.type(":dispatch ticTacToe.placeToken {index = 4}")
        #expect(failed.errors.hasPrefix("cannot write \(path): No space left on device: entry 1 was not recorded"))
        #expect(failed.errors.contains("recording stopped"))
        #expect(shell.print("return flux.state('ticTacToe').board[5]") == "X\n")
        #expect(shell.type(":record").errors.hasPrefix("usage: :record"), "the recording ended")
    }

    @Test("fluxsh on a full disk (a file-size limit): :record stops with an error, the log keeps whole lines, every store goes on",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh")))
    func fullDisk() throws {
        let path = folder + "/game.jsonl"
        var input = ":record \(path)\n"
        for _ in 0 ..< 40 { input += ":dispatch ticTacToe.placeToken {index = 4}\n:undo\n" }
        input += "print(flux.state('ticTacToe').gameInstruction)\n:record\nprint('still here')\n"
        let result = try FluxshProcess.run(["--no-color"], input: input, fileSizeLimit: 1)
        #expect(result.output.contains("X's turn\n"))
        #expect(result.output.hasSuffix("still here\n"))
        #expect(result.errors.contains("cannot write \(path): File too large: entry "))
        #expect(result.errors.components(separatedBy: "cannot write").count == 2, "reported once")
        let log = try lines(path)
        #expect(log.last == "", "the log ends with a whole line")
        #expect(log.dropLast().allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
        #expect(FileManager.default.contents(atPath: path)?.count ?? 0 <= 1024)
    }
}
