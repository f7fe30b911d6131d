@testable import FluxShell
import Foundation
import Testing

/// Every fenced block of `README.md` and `docs/*.md` runs as it is written, or says why it does not: a
/// manual whose examples fail when copied is wrong. The conventions (docs/README.md tells writers):
///
/// - a block whose first line is a comment naming a file (`-- plugins/todo/init.lua`), or right after a
///   line `<!-- file: Package.swift -->`, is that file: it is written into the page's folder before
///   anything of the page runs (a path starting `~/` into the page's home folder, which the page's
///   processes get as HOME and XDG_CONFIG_HOME's parent);
/// - a block with `flux> ` lines is a transcript: its input is piped into `fluxsh` (one process; or, with
///   `$ fluxsh ARGS` lines, one process per such line, sharing the page's sessions folder) and what it
///   prints — output and errors, in order — must be the block's other lines;
/// - an `sh` block's `$ fluxsh ARGS` lines run in the page's folder; the lines after each are what it
///   prints (`NN ms` may differ);
/// - a `lua` block that names no file is input: the page's such blocks are piped in order into one
///   `fluxsh`, which must report no error (an expression prints its value, as at the prompt);
/// - a block right after a line `<!-- not run: WHY -->` is not run. Any other block fails this spec.
@Suite("Every block of the docs runs", .serialized)
struct DocsSpec {
    @Test("each page's blocks: files written, transcripts and commands print what the page shows, scripts run",
          arguments: Docs.pages())
    func page(_ page: String) throws {
        let blocks = try Docs.blocks(in: page)
        let folder = temporaryPath("docs-" + page.replacingOccurrences(of: "/", with: "-"))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var environment = ["XDG_STATE_HOME": folder + "/.state", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "COLUMNS": "80",
                           "NO_COLOR": "1"]

        for block in blocks {
            if case var .file(path) = block.kind {
                // `~/.config/fluxsh/init.lua`: the page's home, which its processes then have.
                if path.hasPrefix("~/") {
                    path = "home/" + path.dropFirst(2)
                    environment["HOME"] = folder + "/home"
                    environment["XDG_CONFIG_HOME"] = folder + "/home/.config"
                }
                let url = URL(fileURLWithPath: folder).appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try block.text.write(to: url, atomically: true, encoding: .utf8)
            }
        }
        var scripts: [String] = []
        for block in blocks {
            switch block.kind {
            case .skipped, .file: break
            case .unclassified:
                Issue.record("\(block.place): a block that neither runs nor says `<!-- not run: WHY -->` before it")
            case .script:
                scripts.append(block.text)
            case let .transcript(runs):
                for run in runs {
                    let result = try Docs.run(run, input: run.input, in: folder, environment: environment)
                    #expect(Docs.normalized(result) == Docs.normalized(run.expected), "\(block.place): \(run.program) \(run.arguments.joined(separator: " "))")
                }
            case let .commands(runs):
                for run in runs {
                    let result = try Docs.run(run, input: "", in: folder, environment: environment)
                    #expect(Docs.normalized(result) == Docs.normalized(run.expected), "\(block.place): \(run.program) \(run.arguments.joined(separator: " "))")
                }
            }
        }
        if !scripts.isEmpty {
            var status: Int32 = 0
            let result = try Docs.fluxsh([], input: scripts.joined(), in: folder, environment: environment, status: &status)
            #expect(status == 0, "\(page)'s lua blocks, piped in order: \(result.joined(separator: "\n"))")
        }
    }

    @Test("the Swift tutorial's files are the package scripts/test builds and runs (Tests/ReadmeExample)")
    func swiftTutorial() throws {
        let files = try Docs.blocks(in: "docs/swift-tutorial.md").compactMap { block -> (String, String)? in
            guard case let .file(path) = block.kind else { return nil }
            return (path, block.text)
        }
        #expect(files.map(\.0) == ["Package.swift", "Sources/Todos/main.swift"])
        for (path, text) in files {
            let fixture = try String(contentsOf: Docs.root.appendingPathComponent("Tests/ReadmeExample/" + path), encoding: .utf8)
            // The tutorial's package sits beside the clone; the fixture inside it.
            #expect(fixture == text.replacingOccurrences(of: #"path: "../FluxShell""#, with: #"path: "../..""#), "\(path)")
        }
    }

    @Test("docs/lua-api.md holds the reference FluxReference and the command table make (FLUX_WRITE_DOCS=1 rewrites it)")
    func luaAPI() throws {
        let url = Docs.root.appendingPathComponent("docs/lua-api.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let begin = try #require(text.range(of: FluxReference.generatedBegin + "\n"))
        let end = try #require(text.range(of: "\n" + FluxReference.generatedEnd, range: begin.upperBound ..< text.endIndex))
        let generated = FluxReference.generatedReference
        if ProcessInfo.processInfo.environment["FLUX_WRITE_DOCS"] == "1", text[begin.upperBound ..< end.lowerBound] != generated {
            try text.replacingCharacters(in: begin.upperBound ..< end.lowerBound, with: generated).write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(text[begin.upperBound ..< end.lowerBound] == generated)
        #expect(!generated.contains("README"), "the reference is complete: it sends nobody to the README")
    }

    @Test("the README stays short: at most 8 KB, and every docs page is linked from it")
    func readme() throws {
        let readme = try String(contentsOf: Docs.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.utf8.count <= 8 * 1024)
        for page in Docs.pages() where page.hasPrefix("docs/") && page != "docs/README.md" {
            #expect(readme.contains("(" + page + ")"), "README.md links \(page)")
        }
    }
}

/// The pages, their blocks, and `fluxsh` run on them.
enum Docs {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `README.md` and every `docs/*.md`, relative to the root.
    static func pages() -> [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    struct Run: Equatable {
        var arguments: [String]
        /// `fluxsh`, or `sqlite3` (a page changing a session's database between two runs).
        var program = "fluxsh"
        var input = ""
        var expected: [String] = []
    }

    enum Kind {
        case skipped, unclassified, script
        case file(String)
        case transcript([Run])
        case commands([Run])
    }

    struct Block {
        var place: String
        var info: String
        var lines: [String]
        var kind: Kind = .unclassified
        var text: String { lines.joined(separator: "\n") + "\n" }
    }

    /// The fenced blocks of `page`, each with what it is.
    static func blocks(in page: String) throws -> [Block] {
        let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
        var blocks: [Block] = []
        var open: (indent: Int, block: Block, skipped: Bool, file: String?)?
        var previous = ""
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var current = open {
                if trimmed == "```" {
                    current.block.kind = current.skipped ? .skipped : current.file.map { .file($0) } ?? kind(of: current.block)
                    blocks.append(current.block)
                    open = nil
                } else {
                    current.block.lines.append(String(line.dropFirst(min(current.indent, line.prefix { $0 == " " }.count))))
                    open = current
                }
            } else if trimmed.hasPrefix("```") {
                // `<!-- file: Package.swift -->` before a block whose first line cannot name it.
                let file = previous.hasPrefix("<!-- file: ") && previous.hasSuffix(" -->")
                    ? String(previous.dropFirst(11).dropLast(4)) : nil
                open = (line.prefix { $0 == " " }.count, Block(place: "\(page):\(number + 1)", info: String(trimmed.dropFirst(3)), lines: []),
                        previous.hasPrefix("<!-- not run:"), file)
            }
            if !trimmed.isEmpty { previous = trimmed }
        }
        return blocks
    }

    /// The program and arguments of a `$ ` line that runs: `fluxsh` (``arguments(ofCommand:)``), or
    /// `sqlite3` on a session's database, where `~/.local/state` is the page's state folder.
    static func command(_ line: String) -> (program: String, arguments: [String])? {
        if let arguments = arguments(ofCommand: line) { return ("fluxsh", arguments) }
        guard line.hasPrefix("$ sqlite3 "), let words = arguments(ofCommand: "$ fluxsh " + line.dropFirst(10)) else { return nil }
        return ("sqlite3", words)
    }

    /// What `run` prints with `input` piped in, its errors in place: `fluxsh`'s, or `sqlite3`'s with the
    /// page's state folder for `~/.local/state`.
    static func run(_ run: Run, input: String, in folder: String, environment: [String: String]) throws -> [String] {
        guard run.program == "sqlite3" else { return try fluxsh(run.arguments, input: input, in: folder, environment: environment) }
        let state = environment["XDG_STATE_HOME"] ?? folder + "/.state"
        let arguments = run.arguments.map { $0.hasPrefix("~/.local/state/") ? state + $0.dropFirst(14) : $0 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec sqlite3 \"$@\" 2>&1", "sqlite3"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    private static func kind(of block: Block) -> Kind {
        if let first = block.lines.first, let path = filePath(in: first) { return .file(path) }
        if block.lines.contains(where: { $0.hasPrefix("flux> ") }) { return .transcript(runs(of: block.lines, transcript: true)) }
        if block.info == "sh", block.lines.contains(where: { $0.hasPrefix("$ ") }),
           block.lines.filter({ $0.hasPrefix("$ ") }).allSatisfy({ command($0) != nil }) {
            return .commands(runs(of: block.lines, transcript: false))
        }
        if block.info == "lua" { return .script }
        return .unclassified
    }

    /// `plugins/todo/init.lua` of `-- plugins/todo/init.lua`; nil when the line names no file.
    private static func filePath(in line: String) -> String? {
        for lead in ["-- ", "// "] where line.hasPrefix(lead) {
            let path = String(line.dropFirst(lead.count))
            if !path.contains(" "), path.hasSuffix(".lua") || path.hasSuffix(".swift") { return path }
        }
        return nil
    }

    /// The arguments of `$ fluxsh ARGS` or `$ scripts/fluxsh ARGS`, words split at blanks outside quotes.
    static func arguments(ofCommand line: String) -> [String]? {
        var words: [String] = [], word = "", quote: Character?, started = false
        for character in line.dropFirst(2) {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                started = true
            } else if character == " " {
                if started || !word.isEmpty { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(character)
            }
        }
        if started || !word.isEmpty { words.append(word) }
        guard let program = words.first, program == "fluxsh" || program == "scripts/fluxsh" else { return nil }
        return Array(words.dropFirst())
    }

    private static func runs(of lines: [String], transcript: Bool) -> [Run] {
        var runs: [Run] = []
        for line in lines {
            if line.hasPrefix("$ "), let (program, arguments) = command(line) {
                runs.append(Run(arguments: arguments, program: program))
                continue
            }
            if runs.isEmpty { runs.append(Run(arguments: [])) }
            if transcript, line.hasPrefix("flux> ") {
                runs[runs.count - 1].input += line.dropFirst(6) + "\n"
            } else if transcript, line.hasPrefix(">> ") {
                runs[runs.count - 1].input += line.dropFirst(3) + "\n"
            } else {
                runs[runs.count - 1].expected.append(line)
            }
        }
        return runs
    }

    /// What `fluxsh arguments` prints with `input` piped in, its errors in place (standard error joined to
    /// standard output, as on a terminal).
    static func fluxsh(_ arguments: [String], input: String, in folder: String, environment extra: [String: String]) throws -> [String] {
        var status: Int32 = 0
        return try fluxsh(arguments, input: input, in: folder, environment: extra, status: &status)
    }

    /// ``fluxsh(_:input:in:environment:)``, with the exit status.
    static func fluxsh(_ arguments: [String], input: String, in folder: String, environment extra: [String: String],
                       status: inout Int32) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" \"$@\" 2>&1", FluxshProcess.path] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = FluxshProcess.environment(extra)
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
        var lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Lines with durations (`107 ms`) and times of day (`06:30:12`) made equal, trailing blanks left out.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { line in
            line.replacingOccurrences(of: #"[0-9]+ ms"#, with: "N ms", options: .regularExpression)
                .replacingOccurrences(of: #"([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2})"#, with: "HH:MM:SS",
                                      options: .regularExpression)
                .replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression)
        }
    }
}
