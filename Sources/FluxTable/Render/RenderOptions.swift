import Glibc

/// What the terminal can show: how wide a line may be, whether to style with colour and bold, and
/// whether Unicode marks display.
///
/// Renderers take these as plain values so their output depends on nothing else; ``detect(fileDescriptor:environment:)``
/// reads them from a file descriptor and an environment.
///
/// ```swift
/// let renderer = TableRenderer(options: .detect())
/// let golden = TableRenderer(options: RenderOptions(width: 40, color: false, unicode: true))
/// ```
public struct RenderOptions: Hashable, Sendable {
    /// The number of columns a line may take.
    public var width: Int
    /// Whether to write colour and bold (ANSI escape sequences).
    public var color: Bool
    /// Whether to write Unicode marks (`✓`, `›`, `●`, `…`) rather than ASCII ones (`v`, `>`, `*`, `...`).
    public var unicode: Bool

    /// Options for a line of `width` columns.
    public init(width: Int = 80, color: Bool = false, unicode: Bool = true) {
        self.width = width
        self.color = color
        self.unicode = unicode
    }

    /// The options for writing to `fileDescriptor`, given the environment:
    /// - width: `COLUMNS` when it is a positive number, else the terminal's size (`TIOCGWINSZ`), else 80;
    /// - color: only when the descriptor is a terminal, `NO_COLOR` is unset or empty (no-color.org) and
    ///   `TERM` is not `dumb`;
    /// - unicode: when the locale (`LC_ALL`, else `LC_CTYPE`, else `LANG`) names UTF-8.
    public static func detect(
        fileDescriptor: Int32 = STDOUT_FILENO,
        environment: [String: String] = RenderOptions.processEnvironment()
    ) -> RenderOptions {
        let isTerminal = isatty(fileDescriptor) == 1
        var width = 80
        if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 {
            width = columns
        } else if isTerminal, let columns = terminalColumns(fileDescriptor) {
            width = columns
        }
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let color = isTerminal && !noColor && environment["TERM"] != "dumb"
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        return RenderOptions(width: width, color: color, unicode: locale.map(UTF8Locale.isUTF8) ?? false)
    }

    /// The process's values of the variables ``detect(fileDescriptor:environment:)`` reads.
    public static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["COLUMNS", "NO_COLOR", "TERM", "LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = getenv(name) {
                environment[name] = String(cString: value)
            }
        }
        return environment
    }

    /// The terminal's width in columns, when the descriptor is a terminal that knows it.
    private static func terminalColumns(_ fileDescriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
