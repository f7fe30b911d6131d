import Foundation

/// The built `fluxsh`, run as a user runs it.
enum FluxshProcess {
    /// The `fluxsh` executable built next to the test bundle.
    static var path: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The test bundle may be a folder (…/Package.xctest/…): go up until fluxsh is beside it.
        for _ in 0..<4 where !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("fluxsh").path) {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("fluxsh").path
    }

    /// The release `fluxsh` — the binary users run.
    ///
    /// `scripts/test` builds it before the specs (a build cannot run from inside `swift test`, which holds
    /// the build folder); a missing one fails the spec with the command that builds it. (Its age says
    /// nothing: a build that finds nothing changed leaves the binary's date as it was.)
    static func releasePath() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let binary = root.appendingPathComponent(".build/release/fluxsh").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ReleaseBinaryMissing(message: "no release fluxsh at \(binary): run `swift build -c release --product fluxsh` (scripts/test does)")
        }
        return binary
    }

    struct ReleaseBinaryMissing: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// This process's environment for a `fluxsh` run: no `LUA_INIT`, history in a temporary folder
    /// (not the user's), and `extra` on top.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = NSTemporaryDirectory()
        // Never the developer's own init.lua and plugins: an empty config folder.
        environment["XDG_CONFIG_HOME"] = emptyConfigHome
        environment.removeValue(forKey: "LUA_INIT")
        environment.removeValue(forKey: "LUA_INIT_5_4")
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// A config folder with no `fluxsh/` in it, made once per test run.
    static let emptyConfigHome: String = {
        let folder = NSTemporaryDirectory() + "fluxsh-no-config-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }()

    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `fluxsh arguments` with `input` piped in and `extra` added to its environment; waits for it to
    /// end. With `interruptAfter`, sends it SIGINT (Ctrl-C's signal) that many seconds after the start
    /// (`interrupts` times, as many seconds apart);
    /// with `killAfter`, SIGKILL; with `fileSizeLimit`, it runs under `ulimit -f` of that many KiB, as on a
    /// disk that is full.
    static func run(_ arguments: [String], input: String = "", in directory: String? = nil,
                    environment extra: [String: String] = [:], interruptAfter: TimeInterval? = nil,
                    interrupts: Int = 1, killAfter: TimeInterval? = nil, fileSizeLimit: Int? = nil,
                    executable: String? = nil) throws -> Result {
        let path = executable ?? path
        let process = Process()
        if let fileSizeLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -f \(fileSizeLimit) && exec \"$0\" \"$@\"", path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = environment(extra)
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        if let interruptAfter {
            for count in 1...max(1, interrupts) {
                DispatchQueue.global().asyncAfter(deadline: .now() + interruptAfter * Double(count)) { process.interrupt() }
            }
        }
        if let killAfter {
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + killAfter) { if process.isRunning { kill(pid, SIGKILL) } }
        }
        // Read both to the end before waiting, so a full pipe cannot stall the process.
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
        return Result(status: process.terminationStatus,
                      output: String(decoding: output, as: UTF8.self),
                      errors: String(decoding: errors, as: UTF8.self))
    }
}
