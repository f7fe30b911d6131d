import Foundation
import Testing

private let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

/// The release `fluxsh` on a pseudo-terminal (through util-linux's `script`), typed into as a user types.
@Suite("fluxsh on a terminal", .enabled(if: hasScript, "needs util-linux's script"))
struct FluxshTerminalSpec {
    @Test("multi-line input, Tab completion, Ctrl-C on a runaway loop with state intact, Ctrl-D to leave")
    func session() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")

        terminal.type("function twice(x)\r")
        try terminal.waitFor(">> ")
        terminal.type("return 2 * x\r")
        try terminal.waitFor(">> ")
        terminal.type("end\r")
        try terminal.waitFor("flux> ")
        terminal.type("twice(21)\r")
        try terminal.waitFor("42\r\n")

        terminal.type("flux.di\t")
        try terminal.waitFor("flux.dispatch")
        terminal.type("('ticTacToe.placeToken', {index = 4})\r")
        try terminal.waitFor("flux> ")

        terminal.type("while true do end\r")
        try terminal.waitFor("while true do end")
        Thread.sleep(forTimeInterval: 0.3) // let the loop start
        terminal.type("\u{3}")
        try terminal.waitFor("interrupted")
        try terminal.waitFor("flux> ")

        terminal.type("flux.state('ticTacToe').gameInstruction\r")
        try terminal.waitFor("O's turn")
        try terminal.waitFor("flux> ")

        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("Ctrl-C clears a partial line, also inside an unfinished chunk; any number of them leave the shell running")
    func interruptAtThePrompt() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("error('this line is dropped')")
        try terminal.waitFor("dropped')")
        terminal.type("\u{3}")
        try terminal.waitFor("^C")
        try terminal.waitFor("flux> ")
        terminal.type("1 + 1\r")
        try terminal.waitFor("2\r\n")
        try terminal.waitFor("flux> ")

        for _ in 0..<3 {
            terminal.type("\u{3}")
            try terminal.waitFor("flux> ")
            Thread.sleep(forTimeInterval: 0.1)
        }

        terminal.type("for i = 1, 3 do\r")
        try terminal.waitFor(">> ")
        terminal.type("print('never')")
        terminal.type("\u{3}")
        try terminal.waitFor("flux> ") // back to the first prompt: the whole chunk is gone
        terminal.type("'still ' .. 'here'\r")
        try terminal.waitFor("still here\r\n")
        try terminal.waitFor("flux> ")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("a line typed with bytes that are not UTF-8 reaches Lua as those bytes, as lua5.4 reads them")
    func typedBytes() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type(bytes: Array(#"print("n=" .. #""#.utf8) + [0xFF, 0xFE] + Array(#"" .. " é=" .. #"é")"#.utf8) + [13])
        try terminal.waitFor("n=2 é=2")
        try terminal.waitFor("flux> ")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("Ctrl-D inside an unfinished chunk reports it and prompts again; on an empty line it leaves")
    func endOfInputInsideAChunk() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("function half(x)\r")
        try terminal.waitFor(">> ")
        terminal.type("\u{4}")
        try terminal.waitFor("the input ended inside a chunk: function half(x)")
        try terminal.waitFor("flux> ")
        terminal.type("half == nil\r")
        try terminal.waitFor("half == nil")
        // The result follows the line: readline, having seen the EOF, once ended every later line with a
        // blank one of its own.
        let between = try terminal.text(until: "true\r\n")
        #expect(!between.contains("\r\r\n") && !between.contains("\n\n"), "\(between.debugDescription)")
        try terminal.waitFor("flux> ")
        terminal.type("2 + 2\r")
        try terminal.waitFor("2 + 2")
        let again = try terminal.text(until: "4\r\n")
        #expect(!again.contains("\r\r\n") && !again.contains("\n\n"), "\(again.debugDescription)")
        try terminal.waitFor("flux> ")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("Ctrl-C while a long result is shown, or a script prints a long text, stops the output; the shell goes on",
          arguments: [("s", "interrupted: the rest of the output is not shown"), ("print(s) printed = true", "stdin:1: interrupted"),
                      ("io.write(s) printed = true", "stdin:1: interrupted")])
    func interruptLongOutput(line: String, message: String) throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("s = string.rep('line\\n', 3000000)\r")
        try terminal.waitFor("flux> ")
        terminal.type(line + "\r")
        try terminal.waitFor("line\r\nline\r\n")
        // A terminal that has not read the output yet: the shell waits on it with most of 15 MB to go.
        terminal.pauseReading()
        terminal.type("\u{3}")
        Thread.sleep(forTimeInterval: 0.3)
        terminal.resumeReading()
        try terminal.waitFor(message)
        try terminal.waitFor("flux> ")
        #expect(terminal.printed.utf8.count < 1_000_000, "the output went on after Ctrl-C")
        terminal.type("#s, printed\r") // the script stopped at print
        try terminal.waitFor("15000000\tnil\r\n")
        try terminal.waitFor("flux> ")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("Ctrl-C while a large table's value is being written out says so, without the shell's own frames")
    func interruptPrintingAValue() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("t = {} for i = 1, 3000000 do t[i] = {i} end\r")
        try terminal.waitFor("flux> ")
        terminal.type("t\r")
        try terminal.waitFor("t\r\n")
        Thread.sleep(forTimeInterval: 0.3) // the table is being written out as text
        terminal.type("\u{3}")
        let shown = try terminal.text(until: "flux> ")
        #expect(shown.contains("interrupted while printing the result"))
        #expect(!shown.contains("fluxsh:") && !shown.contains("traceback"), "\(shown)")
        terminal.type("#t\r")
        try terminal.waitFor("3000000\r\n")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("Ctrl-C reaches a script waiting in io.read() for a line of the terminal, at once")
    func interruptReadingScript() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("line = io.read() read = true\r")
        try terminal.waitFor("read = true")
        Thread.sleep(forTimeInterval: 0.3) // the script waits for a line
        terminal.type("\u{3}")
        try terminal.waitFor("stdin:1: interrupted")
        try terminal.waitFor("flux> ")
        terminal.type("read == nil\r")
        try terminal.waitFor("true\r\n")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("after the terminal is resized, :render fits the new width")
    func resize() throws {
        let view = "flux.view('long', {store = 'ticTacToe', render = function() return {sections = {{id = 's', header = 'H', cells = {{id = '1', title = string.rep('word ', 30)}}}}} end})"
        // What a 50-column terminal shows: the same view rendered with COLUMNS=50.
        let expected = try FluxshProcess.run(["--no-color"], input: view + "\n:render long\n", environment: ["COLUMNS": "50"]).output
        #expect(Self.widest(expected) < 60)
        let terminal = try Terminal(columns: nil)
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type(view + "\r")
        try terminal.waitFor("flux> ")
        terminal.type(":render long\r")
        try terminal.waitFor("long\r\n")
        let wide = try terminal.text(until: "flux> ")
        #expect(Self.widest(wide) > 60, "the table is wider than the terminal it will be rendered to")

        // stty sets the terminal's size, as a window resize does; the kernel sends SIGWINCH.
        terminal.type("os.execute('stty cols 50 rows 20')\r")
        try terminal.waitFor("flux> ")
        terminal.type(":render long\r")
        try terminal.waitFor("long\r\n")
        let narrow = try terminal.text(until: "flux> ")
        #expect(Self.lines(narrow) == Self.lines(expected), "rendered for 50 columns:\n\(narrow)")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("Ctrl-C during a long :replay applies nothing of it and says so; a progress line shows meanwhile")
    func interruptReplay() throws {
        let log = temporaryPath("slow.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        try String(repeating: #"{"name":"slow.tick","payload":{}}"# + "\n", count: 3_000)
            .write(toFile: log, atomically: true, encoding: .utf8)
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        // Each tick spins a while, so the replay takes many seconds.
        terminal.type("flux.store{name = 'slow', state = {count = 0}, on = {['slow.tick'] = function(s) for i = 1, 300000 do end s.count = s.count + 1 return s end}}\r")
        try terminal.waitFor("flux> ")
        terminal.type("flux.dispatch('slow.tick')\r")
        try terminal.waitFor("flux> ")
        terminal.type(":replay \(log)\r")
        try terminal.waitFor("replaying")
        try terminal.waitFor("s left")
        terminal.type("\u{3}")
        try terminal.waitFor("interrupted: nothing of \(log) was applied")
        try terminal.waitFor("flux> ")
        terminal.type("flux.state('slow').count\r")
        try terminal.waitFor("1\r\n")
        try terminal.waitFor("flux> ")
        terminal.type(":history\r")
        try terminal.waitFor("#1 slow.tick")
        try terminal.waitFor("now")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("with standard output redirected, prompts and escapes stay on the terminal and results go to the file, each as it comes")
    func redirectedOutput() throws {
        let file = temporaryPath("out.txt")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let terminal = try Terminal("", redirect: file)
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("6 * 7\r")
        try terminal.waitFor("flux> ")
        // Out at once, not when the shell ends: `fluxsh | tee log` shows each result as it comes.
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "42\n")
        terminal.type(":render ticTacToe\r")
        try terminal.waitFor("flux> ")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
        let output = try String(contentsOfFile: file, encoding: .utf8)
        #expect(output.hasPrefix("42\n"))
        #expect(output.contains("X's turn"))
        #expect(!output.contains("flux>"))
        #expect(!output.contains("FluxShell"), "the banner is for the terminal")
        #expect(!output.contains("\u{1B}"), "no terminal escapes: \(output.debugDescription)")
    }

    /// The widest line's length, in characters.
    static func widest(_ text: String) -> Int {
        lines(text).map(\.count).max() ?? 0
    }

    /// The lines of what a terminal showed, without carriage returns and bracketed-paste switches.
    static func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\u{1B}[?2004l", with: "")
            .replacingOccurrences(of: "\u{1B}[?2004h", with: "")
            .split(separator: "\n").map(String.init)
    }
}

/// A process on a pseudo-terminal: what it prints is collected; what is typed goes to its terminal.
final class Terminal: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var text = ""
    private var searchFrom: String.Index?
    private let state: String

    /// `fluxsh arguments` from the release build on a fresh terminal; `redirect` names a file its standard
    /// output goes to. Without `columns` the terminal keeps the size it was given (or none). Its history
    /// lives under `state` (a fresh folder by default); the shell commands in `prelude` (e.g. `ulimit -f 1`)
    /// run first.
    init(_ arguments: String = "--no-color", redirect: String? = nil, columns: String? = "100",
         state: String = temporaryPath("state"), prelude: String = "") throws {
        let binary = try FluxshProcess.releasePath()
        self.state = state
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // -q: no banner; -f: flush at once; -e: its exit status is fluxsh's; the log goes nowhere. `script`
        // starts the command through $SHELL; `exec` takes that shell away, so Ctrl-C reaches fluxsh alone
        // (dash, waiting for its child, would otherwise exit 130 on it).
        var command = prelude + (prelude.isEmpty ? "" : "; ") + "exec " + quoted(binary) + " " + arguments
        if let redirect { command += " > " + quoted(redirect) }
        process.arguments = ["-qfec", command, "/dev/null"]
        // SHELL: the shell script runs the command with; the user's may be anything, even /bin/false.
        var environment = FluxshProcess.environment(["XDG_STATE_HOME": state, "TERM": "xterm", "SHELL": "/bin/sh"])
        environment["COLUMNS"] = columns
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        resumeReading()
        try process.run()
    }

    /// Stops reading what the process prints, as a terminal that is slow to draw: once the buffers
    /// between are full, the process waits in its writes.
    func pauseReading() {
        output.fileHandleForReading.readabilityHandler = nil
    }

    /// Reads what the process prints again (as from the start).
    func resumeReading() {
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            lock.withLock { text += String(decoding: data, as: UTF8.self) }
        }
    }

    func type(_ keys: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data(keys.utf8))
    }

    func type(bytes: [UInt8]) {
        try? input.fileHandleForWriting.write(contentsOf: Data(bytes))
    }

    /// Waits until `expected` appears after what the last wait found; fails after `timeout` seconds.
    func waitFor(_ expected: String, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let found: Bool = lock.withLock {
                let start = searchFrom ?? text.startIndex
                guard let range = text.range(of: expected, range: start..<text.endIndex) else { return false }
                searchFrom = range.upperBound
                return true
            }
            if found { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let seen = lock.withLock { text }
        throw TerminalTimeout(expected: expected, seen: seen)
    }

    /// What the terminal showed between the end of the last wait and the next `until`, which it waits for.
    func text(until end: String, timeout: TimeInterval = 30) throws -> String {
        let start = lock.withLock { searchFrom ?? text.startIndex }
        try waitFor(end, timeout: timeout)
        return lock.withLock {
            let stop = text.index(searchFrom!, offsetBy: -end.count)
            return String(text[start..<stop])
        }
    }

    func exitStatus(timeout: TimeInterval = 30) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !process.isRunning else { throw TerminalTimeout(expected: "the end of the process", seen: lock.withLock { text }) }
        return process.terminationStatus
    }

    /// Everything printed so far.
    var printed: String { lock.withLock { text } }

    func stop() {
        output.fileHandleForReading.readabilityHandler = nil
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(atPath: state)
    }
}

struct TerminalTimeout: Error, CustomStringConvertible {
    let expected: String
    let seen: String
    var description: String { "waited in vain for \(expected.debugDescription); the terminal shows:\n\(seen)" }
}

private func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
