import Foundation
import Testing

private let tmuxPath = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// The release `fluxsh`'s `:open` in a real terminal emulator (tmux, on a server of its own): real keys
/// in, the screen read back as tmux shows it — during the view, and after it, when the screen the user
/// had must be back exactly.
@Suite("fluxsh :open in tmux", .enabled(if: tmuxPath != nil, "needs tmux (scripts/test installs it)"), .serialized)
struct LiveViewTerminalSpec {
    @Test("a view opens full-screen, keys toggle a filter, q brings back the screen as it was with the prompt")
    func openToggleLeave() throws {
        let tmux = try Tmux(command: "exec \(try FluxshProcess.releasePath().quotedForShell) --no-color")
        defer { tmux.stop() }
        try tmux.waitFor("flux>")
        tmux.type(":render ticTacToe", enter: true)
        try tmux.waitFor("6 7 8")
        let before = tmux.screen()
        tmux.type(":open annotationFilter", enter: true)
        try tmux.waitFor("? lists the keys")
        #expect(tmux.screen().hasPrefix("annotationFilter\n▸  Hide everything"))
        tmux.keys("Down", "Enter")
        // The status line (`… → 1 row changed in annotationFilter`) is cut at the 60 columns of this terminal.
        try tmux.waitFor("▸  Shared with team ✓")
        #expect(tmux.screen().contains("annotationFilter.toggleFilter {filter = \"shareStatus.shared…"))
        tmux.keys("q")
        try tmux.waitFor("flux>", after: ":open annotationFilter")
        // The screen before, the command line, and a fresh prompt: nothing of the view is left.
        // (The terminal is 16 lines tall: the two lines may scroll the top line away.)
        let expected = before.dropLast("flux>\n".count) + "flux> :open annotationFilter\nflux>\n"
        #expect(tmux.screen() == expected.split(separator: "\n", omittingEmptySubsequences: false).dropLast().suffix(16)
            .joined(separator: "\n") + "\n")
        tmux.type("flux.state('annotationFilter').isFiltering", enter: true)
        try tmux.waitFor("true")
    }

    @Test("Ctrl-C leaves the view, not the shell; tic-tac-toe is played by arrow keys")
    func interruptAndPlay() throws {
        let tmux = try Tmux(command: "exec \(try FluxshProcess.releasePath().quotedForShell) --no-color")
        defer { tmux.stop() }
        try tmux.waitFor("flux>")
        tmux.type(":open ticTacToe", enter: true)
        try tmux.waitFor("X's turn")
        tmux.keys("Right", "Enter", "Down", "Enter", "Left", "Up", "Enter")
        try tmux.waitFor("index = 0")
        #expect(tmux.screen().contains("▸ [X]X .  0 1 2\n   . O .  3 4 5"))
        tmux.keys("C-c")
        try tmux.waitFor("flux>", after: ":open ticTacToe")
        tmux.type(":render ticTacToe", enter: true)
        try tmux.waitFor("O's turn")
    }

    @Test("Ctrl-Z gives the shell's terminal back, fg redraws the view; SIGTERM restores the terminal before ending")
    func suspendAndTerminate() throws {
        let binary = try FluxshProcess.releasePath().quotedForShell
        let tmux = try Tmux(command: "exec /bin/bash --norc --noprofile -i")
        defer { tmux.stop() }
        tmux.type("PS1='bash$ '", enter: true)
        try tmux.waitFor("bash$")
        tmux.type("\(binary) --no-color open ticTacToe", enter: true)
        try tmux.waitFor("X's turn")
        tmux.keys("C-z")
        try tmux.waitFor("Stopped")
        #expect(!tmux.screen().contains("X's turn"))
        tmux.type("fg", enter: true)
        try tmux.waitFor("? lists the keys")
        #expect(tmux.screen().contains("X's turn"))
        tmux.keys("Enter")
        try tmux.waitFor("index = 0")
        // SIGTERM to fluxsh (bash's child): the terminal is put back, then fluxsh ends as SIGTERM ends it.
        let shellPID = tmux.run(["list-panes", "-t", tmux.target, "-F", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        child.arguments = ["-TERM", "-P", shellPID]
        try child.run()
        child.waitUntilExit()
        try tmux.waitFor("bash$", after: "fg")
        #expect(!tmux.screen().contains("X's turn"))
        tmux.type("stty -a | grep -o ' icanon' ; echo restored", enter: true)
        try tmux.waitFor(" icanon\nrestored")
    }
}

/// A tmux server of its own with one window running `command`.
final class Tmux {
    let socket = "fluxsh-spec-\(getpid())-\(UUID().uuidString.prefix(8))"
    let target = "spec"

    init(command: String, width: Int = 60, height: Int = 16) throws {
        let environment = FluxshProcess.environment(["TERM": "xterm-256color", "XDG_STATE_HOME": NSTemporaryDirectory() + "/tmux-state-\(socket)"])
        let exports = ["XDG_STATE_HOME", "LANG", "LC_ALL"].compactMap { name in
            environment[name].map { "\(name)=\($0.quotedForShell)" }
        }
        let line = "env " + (exports + ["LANG=C.UTF-8"]).joined(separator: " ") + " sh -c " + command.quotedForShell
        // Started through system(3), which waits for the client alone: the server it leaves running keeps
        // what it inherited, and Process waited for that too (for ever).
        let words = [tmuxPath!, "-u", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", target,
                     "-x", String(width), "-y", String(height), line]
        _ = system(words.map(\.quotedForShell).joined(separator: " ") + " </dev/null >/dev/null 2>&1")
    }

    @discardableResult
    func run(_ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tmuxPath!)
        process.arguments = ["-u", "-L", socket] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try? process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The screen as tmux shows it, without styles, trailing blanks and blank lines at the end.
    func screen() -> String {
        let lines = run(["capture-pane", "-p", "-t", target]).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
        var end = lines.count
        while end > 0 && lines[end - 1].isEmpty { end -= 1 }
        return lines[..<end].joined(separator: "\n") + "\n"
    }

    func type(_ text: String, enter: Bool) {
        if !text.isEmpty { run(["send-keys", "-t", target, "-l", text]) }
        if enter { run(["send-keys", "-t", target, "Enter"]) }
    }

    func keys(_ names: String...) {
        for name in names {
            run(["send-keys", "-t", target, name])
            Thread.sleep(forTimeInterval: 0.05) // keys apart, as typed (a lone Esc waits 40 ms)
        }
    }

    /// Waits until the screen shows `text` (after the last line containing `after`, if given).
    func waitFor(_ text: String, after: String? = nil, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var shown = ""
        while Date() < deadline {
            shown = screen()
            var searched = Substring(shown)
            if let after, let range = shown.range(of: after, options: .backwards) { searched = shown[range.upperBound...] }
            else if after != nil { searched = "" }
            if searched.contains(text) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TerminalTimeout(expected: text, seen: shown)
    }

    func stop() {
        run(["kill-server"])
    }
}

extension String {
    var quotedForShell: String { "'" + replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
}
