#if canImport(Glibc)
import Glibc
#endif

/// The terminal while a live view is open: raw keys (no echo, no line editing, no signals from Ctrl-C or
/// Ctrl-Z, which arrive as keys), the alternate screen, no cursor, keypad mode, mouse clicks reported
/// (Shift with the mouse still selects text in xterm and tmux); and back to exactly how it was.
final class LiveTerminal {
    /// Where keys come from.
    let input: Int32
    /// Where the screen is drawn.
    let output: Int32
    let capabilities: TerminalCapabilities
    private var saved = termios()
    private var hasSaved = false
    private(set) var isEntered = false

    init(input: Int32, output: Int32, capabilities: TerminalCapabilities) {
        self.input = input
        self.output = output
        self.capabilities = capabilities
    }

    /// The terminal's size, columns × lines (80 × 24 when it does not say).
    var size: (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Raw mode and the alternate screen; again after a stop, as the shell that continued us may have
    /// changed the modes.
    func enter() throws {
        if !hasSaved {
            guard tcgetattr(input, &saved) == 0 else { throw LiveTerminalError.notATerminal }
            hasSaved = true
        }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR | ISTRIP | BRKINT)
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        _ = tcsetattr(input, TCSAFLUSH, &raw)
        write(capabilities.enterScreen + capabilities.keypadOn + capabilities.hideCursor + capabilities.mouseOn)
        isEntered = true
    }

    /// The user's screen and modes back, as before ``enter()``.
    func leave() {
        guard isEntered else { return }
        var bytes = capabilities.mouseOff + capabilities.resetStyle + capabilities.keypadOff + capabilities.showCursor
        if capabilities.leaveScreen.isEmpty {
            // No alternate screen (the Linux console): at least leave a clean screen.
            bytes += capabilities.sequences.clearScreen
        } else {
            bytes += capabilities.leaveScreen
        }
        write(bytes)
        if hasSaved { _ = tcsetattr(input, TCSAFLUSH, &saved) }
        isEntered = false
    }

    /// Writes all of `bytes`, retrying after signals.
    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(output, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// Why a view cannot be opened on this terminal.
enum LiveTerminalError: Error, CustomStringConvertible {
    case notATerminal
    case cannotAddressCursor(String)

    var description: String {
        switch self {
        case .notATerminal:
            "a view opens on a terminal: standard input and output must be one (flux.pilot shows a view without one)"
        case let .cannotAddressCursor(term):
            "terminal '\(term)' cannot move its cursor, so it cannot show a view (set TERM, e.g. TERM=xterm)"
        }
    }
}
