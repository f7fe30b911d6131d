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
        // Specs in a script run as it runs, each test's line written as it ends; a failed test fails the run.
        var failedTests = 0
        var headings: [String] = []
        let lines = ScriptReportText(verbose: true)
        let specs = SpecRuntime.install(in: shell) { result in
            if result.status == .failed { failedTests += 1 }
            write(lines.lines(result, headings: &headings, indent: 0))
        }
        guard shell.runInit() else { return 1 }
        for path in paths {
            do {
                for setup in Self.setupFiles(for: path) { try shell.runScript(at: setup) }
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
        if let totals = ScriptReportText.testTotals([ScriptReport(script: "", tests: specs.results)]) { write(totals) }
        withExtendedLifetime(specs) {}
        return reported || failedTests > 0 ? 1 : 0
    }

    /// How `test` runs each script.
    public enum Isolation {
        /// In this process (for a child process running one script, and for specs).
        case none
        /// In a process of its own, `executable test --report FILE …`: an `os.exit`, a crash or a hang
        /// fails that script alone, and the script's children end with it (its process group is killed).
        case process(executable: String, arguments: [String])
    }

    /// Runs each script of `paths` (files, or folders searched recursively for `.lua` files, in name
    /// order) in a fresh shell, up to `options.jobs` at once, writing for each, in that order, what it
    /// printed and a block: `ok` or `FAIL`, the time it took, the failure's place and traceback or a line
    /// per test; then, when scripts had tests, their totals; then always `N passed, N failed` (scripts).
    ///
    /// A script fails when it raises an error, when a test of it fails, or when an error nobody could
    /// catch is reported while it runs (a subscriber's, a view's); isolated, also when it exits early,
    /// crashes or runs out of time.
    ///
    /// - Returns: 0 when every script passed (and there was at least one), else 1.
    public func test(_ paths: [String], options: TestOptions = TestOptions(), isolation: Isolation = .none) -> Int32 {
        var scripts: [String] = []
        var reports: [ScriptReport] = []
        var missing = 0
        do {
            scripts = try Self.scripts(in: paths)
        } catch {
            writeError("\(error)\n")
            missing += 1
        }
        if scripts.isEmpty && missing == 0 {
            writeError("no .lua scripts in \(paths.joined(separator: ", "))\n")
        }
        let text = ScriptReportText(verbose: options.verbose, width: scripts.map(\.count).max() ?? 0)
        var tap = ScriptReportTAP()
        if options.tap { write("TAP version 13\n") }
        let show: (ScriptReport) -> Void = { report in
            if options.tap { return write(tap.text(report)) }
            if !report.output.isEmpty { write(report.output) }
            if !report.errors.isEmpty { writeError(report.errors) }
            write(text.text(report))
        }
        // A script whose path holds the filter runs whole; another runs only the tests whose names hold it,
        // and is left out when none does.
        let testFilter: (String) -> String? = { script in
            options.filter.flatMap { script.contains($0) ? nil : $0 }
        }
        let kept: (ScriptReport) -> Bool = { report in
            testFilter(report.script) == nil || !report.tests.isEmpty
        }
        switch isolation {
        case .none:
            for script in scripts {
                var spec = options.spec
                spec.filter = testFilter(script)
                let report = self.report(script, options: spec)
                guard kept(report) else { continue }
                reports.append(report)
                show(report)
                if options.stopAtFirstFailure && !report.passed { break }
            }
        case let .process(executable, arguments):
            reports = TestScheduler(scripts: scripts, executable: executable, jobs: max(1, options.jobs),
                                    timeout: options.timeout, stopAtFirstFailure: options.stopAtFirstFailure) { script in
                var words = arguments
                if let filter = testFilter(script) { words += ["--filter", filter] }
                if options.stopAtFirstFailure { words.append("-x") }
                if options.listing { words.append("--list") }
                if options.updatingSnapshots { words.append("--update-snapshots") }
                return words
            }.run { report in
                guard kept(report) else { return false }
                show(report)
                return true
            }
        }
        let passed = reports.filter(\.passed).count
        let failed = reports.count - passed + missing
        if let junit = options.junit {
            do {
                try Data(ScriptReportJUnit.xml(reports).utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                writeError("cannot write --junit \(junit): \(error.localizedDescription)\n")
            }
        }
        if options.tap {
            write("1..\(tap.count)\n# \(passed) passed, \(failed) failed\n")
        } else {
            if let totals = ScriptReportText.testTotals(reports) { write(totals) }
            write("\(passed) passed, \(failed) failed\n")
        }
        return failed == 0 && passed > 0 ? 0 : 1
    }

    /// Runs one script in a fresh shell (after the `fluxsh-test.lua` files of its folders), its tests
    /// with the spec runtime; `progress` hears the report after each test.
    func report(_ path: String, options: SpecRuntime.Options = SpecRuntime.Options(),
                progress: ((ScriptReport) -> Void)? = nil) -> ScriptReport {
        var report = ScriptReport(script: path)
        let start = Date()
        var reported: [String] = []
        var configuration = configuration
        configuration.instructionBudget = configuration.instructionBudget ?? Self.testBudget
        // Rendered text compared by a script must not depend on the terminal it runs in.
        configuration.width = configuration.width ?? 80
        configuration.unicode = configuration.unicode ?? true
        // Timers run on a virtual clock that `flux.advance` moves: a test of an hour takes milliseconds.
        configuration.virtualClock = true
        let shell = Shell(configuration: configuration, write: write) { reported.append($0) }
        let specs = SpecRuntime.install(in: shell, options: options) { result in
            report.tests.append(result)
            progress?(report)
        }
        defer { withExtendedLifetime(specs) {} }
        do {
            for setup in Self.setupFiles(for: path) { try shell.runScript(at: setup) }
            try shell.runScript(at: path)
            report.finished = true
        } catch {
            report.failure = Self.failure(FluxHost.describe(error), in: path)
        }
        if report.failure == nil, let first = reported.first { report.failure = Self.failure(first, in: path) }
        report.milliseconds = Date().timeIntervalSince(start) * 1000
        return report
    }

    /// The `--report` side: runs `path` here, writing its report to `file` as JSON after each test and
    /// at the end.
    public func testOne(_ path: String, report file: String, options: TestOptions = TestOptions()) -> Int32 {
        func save(_ report: ScriptReport) -> Bool {
            fflush(nil)
            guard let data = try? JSONEncoder().encode(report) else { return false }
            return FileManager.default.createFile(atPath: file, contents: data)
        }
        let report = report(path, options: options.spec) { _ = save($0) }
        return save(report) ? 0 : 1
    }

    /// The setup files a script runs after: `fluxsh-test.lua` in each folder of its path, outermost first
    /// (a relative path's folders; an absolute path's own folder).
    static func setupFiles(for script: String) -> [String] {
        // Every folder of the path, split as `PathParts` splits (Foundation's splitting traps on "t").
        let parts = script.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        let folders: [String]
        if script.hasPrefix("/") {
            folders = [parts.count == 1 ? "/" : parts.joined(separator: "/")]
        } else {
            // "a/b/c.lua" → "", "a", "a/b"; "./t/x.lua" → ".", "./t" (a leading "." is the current folder).
            var prefixes = parts.indices.map { parts[...$0].joined(separator: "/") }
            if parts.first != "." { prefixes.insert("", at: 0) }
            folders = prefixes
        }
        var seen = Set<String>()
        return folders.map { $0.isEmpty ? setupName : ($0.hasSuffix("/") ? $0 : $0 + "/") + setupName }
            .filter { seen.insert($0).inserted && FileManager.default.fileExists(atPath: $0) }
    }

    /// The name of a folder's setup file, which `fluxsh test` runs before each script of the folder.
    public static let setupName = "fluxsh-test.lua"

    static func seconds(_ interval: TimeInterval) -> String {
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
        let traceback = withoutShellFrames(Array(lines.dropFirst(messageLines.count)))
        let tracebackText = traceback.map { "\n      " + $0.replacingOccurrences(of: "\t", with: "  ") }.joined()
        return placed(messageLines.joined(separator: "\n      "), lines: Array(traceback), in: path) + tracebackText
    }

    /// A traceback without the frames of the shell's own Lua (`expect`, the spec runtime) and the
    /// `error` call they raise with: it starts at the script's line.
    static func withoutShellFrames(_ lines: [String]) -> [String] {
        var kept: [String] = []
        var inTraceback = false
        for line in lines {
            let frame = line.trimmingCharacters(in: .whitespaces)
            if line == "stack traceback:" { inTraceback = true }
            if inTraceback, frame.hasPrefix("fluxsh:") {
                if kept.last?.trimmingCharacters(in: .whitespaces) == "[C]: in function 'error'" { kept.removeLast() }
                continue
            }
            kept.append(line)
        }
        return kept
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
            var visited = Set<FolderIdentity>()
            let folder = path == "/" ? "" : (path.hasSuffix("/") ? String(path.dropLast()) : path)
            scripts += try Self.scripts(inFolder: folder, visited: &visited)
        }
        return scripts
    }
}

extension ScriptRunner {
    /// A folder as the file system knows it, so that a link back to a folder on the way is walked once.
    private struct FolderIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// The scripts under `folder` ("" for the root), each folder walked once however many links lead to it.
    private static func scripts(inFolder folder: String, visited: inout Set<FolderIdentity>) throws -> [String] {
        let shown = folder.isEmpty ? "/" : folder
        var info = stat()
        guard stat(shown, &info) == 0 else { throw ScriptRunnerError("cannot read the folder \(shown): \(String(cString: strerror(errno)))") }
        guard visited.insert(FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: shown)
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? Int(EIO)
            throw ScriptRunnerError("cannot read the folder \(shown): \(String(cString: strerror(Int32(code))))")
        }
        var scripts: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                if !FileManager.default.fileExists(atPath: path + "/init.lua") { scripts += try Self.scripts(inFolder: path, visited: &visited) }
            } else if name.hasSuffix(".lua") && name != setupName {
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
