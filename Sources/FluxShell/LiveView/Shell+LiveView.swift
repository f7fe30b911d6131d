import FluxTable
import FluxViews
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Shell {
    /// `:open VIEW [VIEW…]`: the views full-screen on the terminal until the user leaves; then the
    /// screen as it was, and whatever was printed meanwhile (a `:watch`, `:log on`, a script's `print`).
    ///
    /// - Throws: without a terminal, for an unknown view, or when a view's first model fails: nothing
    ///   was shown.
    func open(_ names: [String]) throws {
        guard !names.isEmpty else { throw ShellCommandError.failed("name the views to open: :open annotationFilter (:views lists them)") }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw LiveTerminalError.notATerminal }
        let term = ProcessInfo.processInfo.environment["TERM"]
        let capabilities = TerminalCapabilities.load(term: term, descriptor: STDOUT_FILENO)
        guard capabilities.canAddressCursor, term != "dumb" else {
            throw LiveTerminalError.cannotAddressCursor(term ?? "")
        }
        var options = RenderOptions.detect(fileDescriptor: STDOUT_FILENO)
        options.color = options.color && host.renderOptions.color
        let screen = try LiveScreen(views: names, actions: host, width: 80, height: 24, options: options)
        defer { screen.close() }
        fflush(nil)
        let capture = try OutputCapture()
        let loop = LiveViewLoop(screen: screen, terminal: LiveTerminal(
            input: STDIN_FILENO, output: capture.terminal, capabilities: capabilities))
        var failure: (any Error)?
        do {
            try loop.run()
        } catch {
            failure = error
        }
        let printed = capture.restore()
        if !printed.isEmpty { write(printed) }
        if let failure { throw failure }
        if let message = screen.closingMessage { throw ShellCommandError.failed(message) }
        if !screen.status.isEmpty, screen.statusIsError { reportMessage("last: " + screen.status) }
    }
}

/// Standard output and error sent to a file while a view is on screen, so nothing printed meanwhile
/// lands on it; the screen is drawn on a copy of the terminal's descriptor.
final class OutputCapture {
    /// The terminal, as standard output was.
    let terminal: Int32
    private let savedError: Int32
    private let file: UnsafeMutablePointer<FILE>
    private var restored = false

    init() throws {
        guard let file = tmpfile() else { throw ShellCommandError.failed("cannot make a file to hold output while the view is open") }
        self.file = file
        fflush(nil)
        terminal = dup(STDOUT_FILENO)
        savedError = dup(STDERR_FILENO)
        dup2(fileno(file), STDOUT_FILENO)
        dup2(fileno(file), STDERR_FILENO)
    }

    /// Puts standard output and error back; what was written meanwhile.
    func restore() -> String {
        guard !restored else { return "" }
        restored = true
        fflush(nil)
        dup2(terminal, STDOUT_FILENO)
        dup2(savedError, STDERR_FILENO)
        close(terminal)
        close(savedError)
        var data = [UInt8]()
        rewind(file)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            data += buffer[..<count]
        }
        fclose(file)
        return String(decoding: data, as: UTF8.self)
    }

    deinit {
        _ = restore()
    }
}
