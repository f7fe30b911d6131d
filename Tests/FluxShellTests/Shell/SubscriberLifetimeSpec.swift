import Foundation
import Testing

/// A Lua subscriber that cancels its store's last subscription while it is told of a change — itself, by
/// `<close>`, or through a view's render — must not bring the shell down. The release build ran its
/// observers through references it did not hold, and aborted; the specs drive the release `fluxsh`, as
/// it is, and under the collector torture (a collection at every allocation).
@Suite("Subscribers that cancel while they are told, in the release fluxsh")
struct SubscriberLifetimeSpec {
    /// Runs `script` piped into the release `fluxsh` (`torture`: with FLUX_GC_TORTURE=1).
    static func release(_ script: String, torture: Bool = false) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FluxshProcess.releasePath())
        process.environment = FluxshProcess.environment(torture ? ["FLUX_GC_TORTURE": "1"] : [:])
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(script.utf8))
        try stdin.fileHandleForWriting.close()
        nonisolated(unsafe) var errors = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errors = stderr.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    static let cases: [(name: String, script: String)] = [
        ("cancels itself", """
            local heard = 0
            local sub
            sub = flux.subscribe("ticTacToe", function(state, previous) heard = heard + 1 if previous then sub:cancel() end end)
            flux.dispatch("ticTacToe.placeToken", {index = 4})
            flux.dispatch("ticTacToe.placeToken", {index = 0})
            print("heard", heard, sub:active())
            """),
        ("cancels itself through <close>", """
            local heard = 0
            local sub
            sub = flux.subscribe("ticTacToe", function(state, previous)
              heard = heard + 1
              if previous then local closing <close> = sub end
            end)
            flux.dispatch("ticTacToe.placeToken", {index = 4})
            flux.dispatch("ticTacToe.placeToken", {index = 0})
            print("heard", heard, sub:active())
            """),
        ("a view's render cancels the store's subscriptions", """
            local heard = 0
            local sub = flux.subscribe("ticTacToe", function(state, previous) heard = heard + 1 end)
            flux.view("cancelling", {store = "ticTacToe", render = function(state)
              for _, s in ipairs(flux.subscriptions("ticTacToe")) do s:cancel() end
              return {sections = {}}
            end})
            local watch = flux.watch("cancelling", function() end)
            flux.dispatch("ticTacToe.placeToken", {index = 4})
            flux.dispatch("ticTacToe.placeToken", {index = 0})
            print("heard", heard, sub:active())
            """),
    ]

    @Test("the shell survives, the subscriber heard its first state and one change, and is cancelled",
          arguments: [false, true])
    func survives(torture: Bool) throws {
        for (name, script) in Self.cases {
            // One chunk (the prompt runs each complete line as a chunk of its own).
            let result = try Self.release("do\n" + script + "\nend\nprint('still here')\n", torture: torture)
            #expect(result.status == 0, "\(name): \(result.errors)")
            #expect(result.output.contains("still here"), "\(name): \(result.output) \(result.errors)")
            #expect(!result.errors.contains("Fatal error"), "\(name): \(result.errors)")
            if name != "a view's render cancels the store's subscriptions" {
                #expect(result.output.contains("heard\t2\tfalse"), "\(name): \(result.output)")
            } else {
                #expect(result.output.contains("\tfalse"), "\(name): \(result.output)")
            }
        }
    }
}
