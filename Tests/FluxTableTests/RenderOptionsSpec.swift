import Glibc
import Testing
import FluxTable

/// A glibc function the Glibc module does not declare (the pty calls sit behind `_XOPEN_SOURCE`).
private func libc<Function>(_ name: String, as type: Function.Type) throws -> Function {
    let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), name), "\(name) not found")
    return unsafeBitCast(symbol, to: type)
}

/// A pseudo-terminal of `columns` columns, so detection sees a real terminal; closed by `close()`.
///
/// Its name comes from `ptsname_r`: `ptsname` returns a static buffer, and tests making terminals at the
/// same time would open each other's. Its descriptors are close-on-exec, so no child process keeps them.
private struct PseudoTerminal {
    let controller: Int32
    let terminal: Int32

    init(columns: UInt16) throws {
        let openController = try libc("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        let grant = try libc("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        let unlock = try libc("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        let name = try libc("ptsname_r", as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self)
        controller = openController(O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(controller >= 0)
        try #require(grant(controller) == 0 && unlock(controller) == 0)
        var path = [CChar](repeating: 0, count: 128)
        try #require(name(controller, &path, path.count) == 0)
        terminal = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(terminal >= 0)
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        try #require(ioctl(terminal, UInt(TIOCSWINSZ), &size) == 0)
    }

    func close() {
        _ = Glibc.close(terminal)
        _ = Glibc.close(controller)
    }
}

/// Runs `body` with the read end of a pipe: a descriptor that is not a terminal.
private func withPipe(_ body: (Int32) throws -> Void) throws {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { ends.forEach { _ = close($0) } }
    try body(ends[0])
}

@Suite("Render options")
struct RenderOptionsSpec {
    let utf8 = ["LANG": "en_US.UTF-8", "TERM": "xterm-256color"]

    @Test("on a terminal: its width from TIOCGWINSZ, colour, and Unicode under a UTF-8 locale")
    func terminal() throws {
        let pty = try PseudoTerminal(columns: 123)
        defer { pty.close() }
        #expect(RenderOptions.detect(fileDescriptor: pty.terminal, environment: utf8)
            == RenderOptions(width: 123, color: true, unicode: true))
    }

    @Test("COLUMNS wins over the terminal's size; a COLUMNS that is not a positive number is ignored")
    func columnsVariable() throws {
        let pty = try PseudoTerminal(columns: 123)
        defer { pty.close() }
        var environment = utf8
        environment["COLUMNS"] = "100"
        #expect(RenderOptions.detect(fileDescriptor: pty.terminal, environment: environment).width == 100)
        environment["COLUMNS"] = "wide"
        #expect(RenderOptions.detect(fileDescriptor: pty.terminal, environment: environment).width == 123)
        environment["COLUMNS"] = "0"
        #expect(RenderOptions.detect(fileDescriptor: pty.terminal, environment: environment).width == 123)
    }

    @Test("NO_COLOR turns colour off even on a terminal; an empty NO_COLOR does not (no-color.org)")
    func noColor() throws {
        let pty = try PseudoTerminal(columns: 80)
        defer { pty.close() }
        var environment = utf8
        environment["NO_COLOR"] = "1"
        let options = RenderOptions.detect(fileDescriptor: pty.terminal, environment: environment)
        #expect(!options.color)
        #expect(!TableRenderer(options: options).render(issuesTable).contains("\u{1B}"))
        environment["NO_COLOR"] = ""
        #expect(RenderOptions.detect(fileDescriptor: pty.terminal, environment: environment).color)
    }

    @Test("a dumb terminal gets no colour")
    func dumbTerminal() throws {
        let pty = try PseudoTerminal(columns: 80)
        defer { pty.close() }
        #expect(!RenderOptions.detect(fileDescriptor: pty.terminal, environment: ["TERM": "dumb"]).color)
    }

    @Test("into a pipe: no colour, and 80 columns unless COLUMNS says otherwise")
    func pipeOutput() throws {
        try withPipe { descriptor in
            #expect(RenderOptions.detect(fileDescriptor: descriptor, environment: utf8)
                == RenderOptions(width: 80, color: false, unicode: true))
            #expect(RenderOptions.detect(fileDescriptor: descriptor, environment: ["COLUMNS": "132"]).width == 132)
        }
    }

    @Test("the locale decides Unicode: LC_ALL, then LC_CTYPE, then LANG; C, POSIX or none mean ASCII")
    func locale() throws {
        try withPipe { descriptor in
            func unicode(_ environment: [String: String]) -> Bool {
                RenderOptions.detect(fileDescriptor: descriptor, environment: environment).unicode
            }
            #expect(unicode(["LANG": "C.UTF-8"]))
            #expect(unicode(["LC_CTYPE": "de_DE.utf8", "LANG": "C"]))
            #expect(!unicode(["LC_ALL": "C", "LANG": "en_US.UTF-8"]))
            #expect(!unicode(["LANG": "POSIX"]))
            #expect(!unicode(["LANG": "de_DE.ISO-8859-1"]))
            #expect(!unicode([:]))
            #expect(unicode(["LC_ALL": "", "LANG": "en_US.UTF-8"]))
        }
    }

    @Test("a non-UTF-8 locale renders ASCII marks")
    func asciiUnderCLocale() throws {
        try withPipe { descriptor in
            let options = RenderOptions.detect(fileDescriptor: descriptor, environment: ["LANG": "C", "COLUMNS": "40"])
            let text = TableRenderer(options: options).render(issuesTable)
            #expect(text.contains("* Closed"))
            #expect(text.contains("..."))
            #expect(text.unicodeScalars.allSatisfy { $0.isASCII })
        }
    }
}
