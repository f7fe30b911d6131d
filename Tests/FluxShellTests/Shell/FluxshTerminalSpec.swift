import Foundation
import Testing

/// `fluxsh` on a pseudo-terminal (through util-linux's `script`), typed into as a user types.
@Suite("fluxsh on a terminal")
struct FluxshTerminalSpec {
    @Test("multi-line input, Tab completion, Ctrl-C on a runaway loop with state intact, Ctrl-D to leave",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux's script"))
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

    /// `fluxsh --no-color` on a terminal, its history under `state` (a fresh folder by default), run
    /// after the shell commands in `prelude` (e.g. `ulimit -f 1`).
    init(state: String = temporaryPath("state"), prelude: String = "") throws {
        self.state = state
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // -q: no banner; -f: flush at once; -e: its exit status is fluxsh's; the log goes nowhere. `script`
        // starts the command through $SHELL; `exec` takes that shell away, so Ctrl-C reaches fluxsh alone
        // (dash, waiting for its child, would otherwise exit 130 on it).
        let command = prelude + (prelude.isEmpty ? "" : "; ") + "exec '" + FluxshProcess.path.replacingOccurrences(of: "'", with: #"'\''"#) + "' --no-color"
        process.arguments = ["-qfec", command, "/dev/null"]
        // SHELL: the shell script runs the command with; the user's may be anything, even /bin/false.
        process.environment = FluxshProcess.environment(["XDG_STATE_HOME": state, "TERM": "xterm", "COLUMNS": "100", "SHELL": "/bin/sh"])
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            lock.withLock { text += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    func type(_ keys: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data(keys.utf8))
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
