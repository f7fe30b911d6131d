import Foundation
import Testing

/// Lua source is bytes: source whose string literal holds bytes that are not UTF-8 reaches Lua as those
/// bytes, as `lua5.4` reads them, not repaired to U+FFFD — given with `-e`, piped to the prompt (a line, a
/// chunk of several lines, an `=` expression), or read from a script file, `fluxsh run` or `fluxsh -`.
@Suite("Lua source as bytes")
struct LuaSourceBytesSpec {
    /// Runs the release `fluxsh` through `sh`, whose `printf` makes the bytes no Swift string can hold.
    func run(_ script: String) throws -> (status: Int32, output: String, errors: String) {
        let folder = NSTemporaryDirectory() + "fluxsh-bytes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, try FluxshProcess.releasePath()]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = FluxshProcess.environment()
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: text, as: UTF8.self), String(decoding: errorText, as: UTF8.self))
    }

    /// The statement every case runs: its literal is the two bytes 0xFF 0xFE, which are not UTF-8.
    static let statement = #"print(#"\377\376", ("\377\376"):byte(1, -1))"#
    /// What it prints when the bytes arrive as they are (U+FFFD twice would be 6 bytes: 239 191 189 …).
    static let expected = "2\t255\t254\n"

    @Test(#"-e 'print(#"\377\376")' typed as two raw bytes prints 2, as lua5.4 does"#)
    func rawBytesInStatement() throws {
        let result = try run(#"exec "$0" --no-session -e "$(printf '"# + Self.statement + #"')""#)
        #expect(result.output == Self.expected, "\(result.errors)")
        #expect(result.status == 0)
    }

    @Test("a line piped to the prompt keeps its bytes")
    func pipedLine() throws {
        let result = try run(#"printf '"# + Self.statement + #"\n' | "$0" --no-session"#)
        #expect(result.output == Self.expected, "\(result.errors)")
        #expect(result.status == 0)
    }

    @Test("a piped chunk of several lines keeps the bytes of each, and an = expression its own")
    func pipedChunkAndExpression() throws {
        let result = try run(#"printf 's = "\377" ..\n"\376"\nprint(#s, s:byte(1, -1))\n= #"\377\376\375"\n' | "$0" --no-session"#)
        #expect(result.output == "2\t255\t254\n3\n", "\(result.errors)")
        #expect(result.status == 0)
    }

    @Test("a script file keeps its bytes: fluxsh FILE, fluxsh run FILE and fluxsh - < FILE")
    func scriptFile() throws {
        let make = #"printf '"# + Self.statement + #"\n' > bytes.lua && "#
        for command in [#""$0" --no-session bytes.lua"#, #""$0" run --no-session bytes.lua"#, #""$0" --no-session - < bytes.lua"#] {
            let result = try run(make + command)
            #expect(result.output == Self.expected, "\(command): \(result.errors)")
            #expect(result.status == 0, "\(command)")
        }
    }

    @Test("a file with a zero byte is still refused as not a script")
    func binaryRefused() throws {
        let result = try run(#"printf 'print(1)\000\n' > binary.lua && "$0" run --no-session binary.lua"#)
        #expect(result.errors.contains("not a text file"), "\(result.errors)")
        #expect(result.status != 0)
        #expect(result.output.isEmpty)
    }
}
