import FluxLua
import Foundation

/// Runs script files in batch: `fluxsh run` (one shell, stop at the first error) and `fluxsh test`
/// (a fresh shell per script, one line per script, a closing count).
public struct ScriptRunner {
    /// What each shell starts with.
    public var configuration: ShellConfiguration
    /// Receives what is printed.
    public var write: (String) -> Void
    /// Receives errors.
    public var writeError: (String) -> Void

    /// The instruction budget a test script gets when its configuration sets none: a script stuck in a
    /// loop fails instead of hanging the run (a billion instructions take seconds).
    public static let testBudget = 1_000_000_000

    /// A runner giving each shell `configuration`.
    public init(configuration: ShellConfiguration, write: @escaping (String) -> Void, writeError: @escaping (String) -> Void) {
        self.configuration = configuration
        self.write = write
        self.writeError = writeError
    }

    /// Runs `paths` in order in one shell (after `LUA_INIT`).
    ///
    /// - Returns: 0, or 1 after the first script that fails (its message and traceback written).
    public func run(_ paths: [String]) -> Int32 {
        let shell = Shell(configuration: configuration, write: write, writeError: writeError)
        guard shell.runInit() else { return 1 }
        for path in paths {
            do {
                try shell.runScript(at: path)
            } catch {
                shell.reportError(error)
                return 1
            }
        }
        return 0
    }

    /// Runs each script of `paths` (files, or folders whose `.lua` files run in name order) in a fresh
    /// shell, writing `ok` or `FAIL` and the error's place for each, then `N passed, N failed`.
    ///
    /// A script fails when it raises an error or when an error nobody could catch is reported while it
    /// runs (a subscriber's, a view's).
    ///
    /// - Returns: 0 when every script passed (and there was at least one), else 1.
    public func test(_ paths: [String]) -> Int32 {
        let scripts: [String]
        do {
            scripts = try Self.scripts(in: paths)
        } catch {
            writeError("\(error)\n")
            return 1
        }
        guard !scripts.isEmpty else {
            writeError("no .lua scripts in \(paths.joined(separator: ", "))\n")
            return 1
        }
        var passed = 0, failed = 0
        let width = scripts.map(\.count).max() ?? 0
        for script in scripts {
            if let failure = test(script) {
                failed += 1
                write("FAIL  \(script.padding(toLength: width, withPad: " ", startingAt: 0))  \(failure)\n")
            } else {
                passed += 1
                write("ok    \(script)\n")
            }
        }
        write("\(passed) passed, \(failed) failed\n")
        return failed == 0 ? 0 : 1
    }

    /// Runs one script in a fresh shell; the reason it failed, or nil.
    private func test(_ path: String) -> String? {
        var reported: [String] = []
        var configuration = configuration
        configuration.instructionBudget = configuration.instructionBudget ?? Self.testBudget
        // Rendered text compared by a script must not depend on the terminal it runs in.
        configuration.width = configuration.width ?? 80
        configuration.unicode = configuration.unicode ?? true
        let shell = Shell(configuration: configuration, write: write) { reported.append($0) }
        do {
            try shell.runScript(at: path)
        } catch {
            return Self.failure(FluxHost.describe(error), in: path)
        }
        guard let first = reported.first else { return nil }
        return Self.failure(first, in: path)
    }

    /// An error's message, led by the script's line where it happened: the message's own place, or
    /// else the innermost frame of the script in the traceback.
    ///
    /// A message of several lines is kept whole, its later lines indented under the first.
    static func failure(_ text: String, in path: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let messageLines = lines.prefix { $0 != "stack traceback:" }
        guard !messageLines.isEmpty else { return "failed with no message" }
        let message = messageLines.joined(separator: "\n      ")
        if message.hasPrefix(path + ":") { return message }
        let frame = lines.dropFirst(messageLines.count).lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(path + ":") }
        guard let frame, let colon = frame.dropFirst(path.count + 1).firstIndex(of: ":") else { return message }
        return String(frame[..<colon]) + ": " + message
    }

    /// The scripts `paths` name: files as given; for a folder, its `.lua` files in name order (not
    /// those of its subfolders, which may hold plugins).
    static func scripts(in paths: [String]) throws -> [String] {
        var scripts: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ScriptRunnerError("no such file or folder: \(path)")
            }
            guard isDirectory.boolValue else {
                scripts.append(path)
                continue
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            for name in names.sorted() where name.hasSuffix(".lua") && !name.hasPrefix(".") {
                let file = folder + "/" + name
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue {
                    scripts.append(file)
                }
            }
        }
        return scripts
    }
}

/// Why scripts could not be found.
struct ScriptRunnerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
