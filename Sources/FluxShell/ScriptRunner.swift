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
    /// Seconds `run` waits for effects left live by its scripts (timers, processes, watches); nil for as
    /// long as any is live.
    public var timeout: Double?

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
    /// - Returns: 0, or 1 after the first script that fails (its message and traceback written), or
    ///   when an error nobody could catch (a subscriber's, a view's, a watch's) was reported meanwhile.
    public func run(_ paths: [String]) -> Int32 {
        var reported = false
        let shell = Shell(configuration: configuration, write: write) { text in
            reported = true
            writeError(text)
        }
        guard shell.runInit() else { return 1 }
        for path in paths {
            do {
                try shell.runScript(at: path)
            } catch {
                shell.reportError(error)
                return 1
            }
        }
        // As Node does: the run goes on while an effect is live, and ends when none is left.
        if shell.waitForEffects(timeout: timeout) == .interrupted {
            shell.reportMessage("interrupted: the effects still live were ended")
        }
        return reported ? 1 : 0
    }

    /// How `test` runs each script.
    public enum Isolation {
        /// In this process (for a child process running one script, and for specs).
        case none
        /// In a process of its own, `executable test --report FILE …`, ended after `timeout` seconds: an
        /// `os.exit`, a crash or a hang fails that script alone.
        case process(executable: String, arguments: [String], timeout: TimeInterval)
    }

    /// Runs each script of `paths` (files, or folders searched recursively for `.lua` files, in name
    /// order) in a fresh shell, writing `ok` or `FAIL`, the time it took and the failure's place and
    /// traceback for each, then always `N passed, N failed`.
    ///
    /// A script fails when it raises an error or when an error nobody could catch is reported while it
    /// runs (a subscriber's, a view's); isolated, also when it exits early, crashes or runs out of time.
    ///
    /// - Parameter filter: When given, only scripts whose path contains it run.
    /// - Returns: 0 when every script passed (and there was at least one), else 1.
    public func test(_ paths: [String], filter: String? = nil, isolation: Isolation = .none) -> Int32 {
        var scripts: [String] = []
        var failed = 0
        do {
            scripts = try Self.scripts(in: paths)
        } catch {
            writeError("\(error)\n")
            failed += 1
        }
        if let filter { scripts = scripts.filter { $0.contains(filter) } }
        if scripts.isEmpty && failed == 0 {
            writeError("no .lua scripts in \(paths.joined(separator: ", "))\(filter.map { " matching '\($0)'" } ?? "")\n")
        }
        var passed = 0
        let width = scripts.map(\.count).max() ?? 0
        for script in scripts {
            let start = Date()
            let failure: String?
            switch isolation {
            case .none: failure = test(script)
            case let .process(executable, arguments, timeout):
                failure = Self.testInProcess(script, executable: executable, arguments: arguments, timeout: timeout)
            }
            let time = Self.milliseconds(since: start)
            if let failure {
                failed += 1
                write("FAIL  \(script.padding(toLength: width, withPad: " ", startingAt: 0))  \(time)  \(failure)\n")
            } else {
                passed += 1
                write("ok    \(script.padding(toLength: width, withPad: " ", startingAt: 0))  \(time)\n")
            }
        }
        write("\(passed) passed, \(failed) failed\n")
        return failed == 0 && passed > 0 ? 0 : 1
    }

    /// Runs one script in a fresh shell; the reason it failed (with its traceback), or nil.
    func test(_ path: String) -> String? {
        var reported: [String] = []
        var configuration = configuration
        configuration.instructionBudget = configuration.instructionBudget ?? Self.testBudget
        // Rendered text compared by a script must not depend on the terminal it runs in.
        configuration.width = configuration.width ?? 80
        configuration.unicode = configuration.unicode ?? true
        // Timers run on a virtual clock that `flux.advance` moves: a test of an hour takes milliseconds.
        configuration.virtualClock = true
        let shell = Shell(configuration: configuration, write: write) { reported.append($0) }
        do {
            try shell.runScript(at: path)
        } catch {
            return Self.failure(FluxHost.describe(error), in: path)
        }
        guard let first = reported.first else { return nil }
        return Self.failure(first, in: path)
    }

    /// Runs one script as `executable arguments --report FILE script` and reads its verdict from FILE.
    static func testInProcess(_ path: String, executable: String, arguments: [String], timeout: TimeInterval) -> String? {
        let report = NSTemporaryDirectory() + "fluxsh-test-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: report) }
        fflush(nil) // the child writes to the same output
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + ["--report", report, path]
        do {
            try process.run()
        } catch {
            return "could not start \(executable): \(error.localizedDescription)"
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return "timed out after \(Self.seconds(timeout)) s (the budget; --timeout sets it)"
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            return "crashed with signal \(signal) (\(String(cString: strsignal(signal))))"
        }
        guard let verdict = FileManager.default.contents(atPath: report).map({ String(decoding: $0, as: UTF8.self) }) else {
            return "ended before its last line, with exit status \(process.terminationStatus) (os.exit?)"
        }
        return verdict == "ok" ? nil : verdict
    }

    /// The `--report` side: runs `path` here and writes `ok` or the failure to `report`.
    public func testOne(_ path: String, report: String) -> Int32 {
        let verdict = test(path) ?? "ok"
        fflush(nil)
        return FileManager.default.createFile(atPath: report, contents: Data(verdict.utf8)) ? 0 : 1
    }

    private static func milliseconds(since start: Date) -> String {
        let ms = Int((Date().timeIntervalSince(start) * 1000).rounded())
        return ms < 1000 ? "\(ms) ms" : String(format: "%.1f s", Double(ms) / 1000)
    }

    private static func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? "\(Int(interval))" : "\(interval)"
    }

    /// An error's message, led by the script's line where it happened: the message's own place, or
    /// else the innermost frame of the script in the traceback.
    ///
    /// A message of several lines is kept whole, its later lines indented under the first; the traceback
    /// follows, indented.
    static func failure(_ text: String, in path: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let messageLines = lines.prefix { $0 != "stack traceback:" }
        guard !messageLines.isEmpty else { return "failed with no message" }
        let traceback = lines.dropFirst(messageLines.count)
        let tracebackText = traceback.map { "\n      " + $0.replacingOccurrences(of: "\t", with: "  ") }.joined()
        return placed(messageLines.joined(separator: "\n      "), lines: Array(traceback), in: path) + tracebackText
    }

    /// The message led by the script's line: its own place, or else the innermost frame of the script.
    private static func placed(_ message: String, lines: [String], in path: String) -> String {
        if message.hasPrefix(path + ":") { return message }
        let frame = lines.lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(path + ":") }
        guard let frame, let colon = frame.dropFirst(path.count + 1).firstIndex(of: ":") else { return message }
        return String(frame[..<colon]) + ": " + message
    }

    /// The scripts `paths` name: files as given; for a folder, the `.lua` files in it and its
    /// subfolders, in name order — except in a plugin's folder (one with an `init.lua`).
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
            scripts += try Self.scripts(inFolder: path.hasSuffix("/") ? String(path.dropLast()) : path)
        }
        return scripts
    }
}

extension ScriptRunner {
    private static func scripts(inFolder folder: String) throws -> [String] {
        var scripts: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where !name.hasPrefix(".") {
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                if !FileManager.default.fileExists(atPath: path + "/init.lua") { scripts += try Self.scripts(inFolder: path) }
            } else if name.hasSuffix(".lua") {
                scripts.append(path)
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
