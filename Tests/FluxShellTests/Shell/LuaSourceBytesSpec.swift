import Foundation
import Testing

/// Lua source is bytes: a statement given with `-e` whose string literal holds bytes that are not UTF-8
/// reaches Lua as those bytes, as `lua5.4 -e` gives them, not repaired to U+FFFD.
@Suite("Lua source as bytes")
struct LuaSourceBytesSpec {
    /// Runs the release `fluxsh` through `sh`, whose `printf` makes the bytes no Swift string can hold.
    func run(_ script: String) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, try FluxshProcess.releasePath()]
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

    @Test(#"-e 'print(#"\377\376")' typed as two raw bytes prints 2, as lua5.4 does"#)
    func rawBytesInStatement() throws {
        let result = try run(#"exec "$0" --no-session -e "$(printf 'print(#"\377\376", ("\377\376"):byte(1, -1))')""#)
        #expect(result.output == "2\t255\t254\n", "\(result.errors)")
        #expect(result.status == 0)
    }
}
