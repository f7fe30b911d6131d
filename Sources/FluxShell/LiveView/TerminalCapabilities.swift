import CTerminfo
import FluxTable
import FluxViews
#if canImport(Glibc)
import Glibc
#endif

/// What a terminal needs to be sent to show a full screen, and the bytes its keys send, read from its
/// terminfo entry (`TERM`) through ncurses' libtinfo.
///
/// Terminfo rather than sequences written here: `linux` has no alternate screen and sends `ESC [ 1 ~`
/// for Home, `screen` and `tmux` send `ESC O A` for Up once keypad mode is on (`smkx`), xterm `ESC O H`;
/// the entry knows each. The common ANSI forms of the keys are understood too, whatever `TERM` says,
/// since a terminal described by the wrong entry still sends them. Without an entry (an unknown `TERM`)
/// the sequences are xterm's, which tmux, screen and the Linux console all understand.
struct TerminalCapabilities {
    /// `smcup`: to the alternate screen, saving the user's.
    var enterScreen: [UInt8]
    /// `rmcup`: back to the user's screen as it was; empty when the terminal has no alternate screen.
    var leaveScreen: [UInt8]
    var hideCursor: [UInt8]
    var showCursor: [UInt8]
    /// `smkx` and `rmkx`: keypad mode, in which the keys send the sequences terminfo lists.
    var keypadOn: [UInt8]
    var keypadOff: [UInt8]
    /// `sgr0`.
    var resetStyle: [UInt8]
    /// Mouse reports on and off (button presses, SGR encoding), for a terminal whose entry has `kmous`.
    var mouseOn: [UInt8]
    var mouseOff: [UInt8]
    /// Cursor addressing and clearing.
    var sequences: TerminalSequences
    /// Whether the terminal can address the cursor at all (`dumb` cannot).
    var canAddressCursor: Bool
    /// Key sequences, terminfo's first.
    var keys: [(bytes: [UInt8], key: LiveKey)]

    /// The ANSI key sequences understood on every terminal (CSI and SS3 forms).
    static let ansiKeys: [(String, LiveKey)] = [
        ("\u{1B}[A", .up), ("\u{1B}OA", .up), ("\u{1B}[B", .down), ("\u{1B}OB", .down),
        ("\u{1B}[C", .right), ("\u{1B}OC", .right), ("\u{1B}[D", .left), ("\u{1B}OD", .left),
        ("\u{1B}[H", .home), ("\u{1B}OH", .home), ("\u{1B}[1~", .home), ("\u{1B}[7~", .home),
        ("\u{1B}[F", .end), ("\u{1B}OF", .end), ("\u{1B}[4~", .end), ("\u{1B}[8~", .end),
        ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown), ("\u{1B}[Z", .backTab),
    ]

    /// Reports of button presses (1000) in the SGR form (1006), which has no limit on the position.
    static let mouseReportsOn = Array("\u{1B}[?1000h\u{1B}[?1006h".utf8)
    static let mouseReportsOff = Array("\u{1B}[?1006l\u{1B}[?1000l".utf8)

    /// xterm's, for a terminal terminfo does not know.
    static let fallback = TerminalCapabilities(
        enterScreen: Array("\u{1B}[?1049h".utf8), leaveScreen: Array("\u{1B}[?1049l".utf8),
        hideCursor: Array("\u{1B}[?25l".utf8), showCursor: Array("\u{1B}[?25h".utf8),
        keypadOn: [], keypadOff: [], resetStyle: Array("\u{1B}[0m".utf8),
        mouseOn: mouseReportsOn, mouseOff: mouseReportsOff,
        sequences: .ansi, canAddressCursor: true,
        keys: ansiKeys.map { (Array($0.0.utf8), $0.1) })

    /// The capabilities of terminal `name` (the `TERM` variable) writing to `descriptor`.
    static func load(term name: String?, descriptor: Int32) -> TerminalCapabilities {
        guard let name, !name.isEmpty, flux_setupterm(name, descriptor) == 1 else { return fallback }
        func string(_ capability: String) -> [UInt8]? {
            guard let value = flux_tigetstr(capability) else { return nil }
            return Array(String(cString: value).utf8)
        }
        let cup = string("cup")
        let moveTo: @Sendable (Int, Int) -> [UInt8]
        if let cup {
            let template = String(decoding: cup, as: UTF8.self)
            moveTo = { row, column in
                guard let filled = flux_tparm2(template, Int32(row), Int32(column)) else { return [] }
                return Array(String(cString: filled).utf8)
            }
        } else {
            moveTo = TerminalSequences.ansi.moveTo
        }
        let keyNames: [(String, LiveKey)] = [
            ("kcuu1", .up), ("kcud1", .down), ("kcub1", .left), ("kcuf1", .right), ("kpp", .pageUp),
            ("knp", .pageDown), ("khome", .home), ("kend", .end), ("kcbt", .backTab),
        ]
        let terminfoKeys = keyNames.compactMap { capability, key in string(capability).map { ($0, key) } }
        return TerminalCapabilities(
            enterScreen: string("smcup") ?? [],
            leaveScreen: string("rmcup") ?? [],
            hideCursor: string("civis") ?? [],
            showCursor: string("cnorm") ?? [],
            keypadOn: string("smkx") ?? [],
            keypadOff: string("rmkx") ?? [],
            resetStyle: string("sgr0") ?? Array("\u{1B}[0m".utf8),
            mouseOn: string("kmous") == nil ? [] : mouseReportsOn,
            mouseOff: string("kmous") == nil ? [] : mouseReportsOff,
            sequences: TerminalSequences(
                moveTo: moveTo,
                clearToEndOfLine: string("el") ?? TerminalSequences.ansi.clearToEndOfLine,
                clearScreen: string("clear") ?? TerminalSequences.ansi.clearScreen),
            canAddressCursor: cup != nil,
            keys: terminfoKeys.map { (bytes: $0.0, key: $0.1) } + ansiKeys.map { (Array($0.0.utf8), $0.1) })
    }
}
