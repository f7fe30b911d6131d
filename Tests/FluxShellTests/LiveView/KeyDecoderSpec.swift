import FluxViews
import Testing
@testable import FluxShell

@Suite("Key decoder")
struct KeyDecoderSpec {
    var decoder = KeyDecoder(keys: TerminalCapabilities.fallback.keys)

    @Test("cursor keys in both their forms, Home and End as xterm, screen and linux send them")
    mutating func sequences() {
        #expect(decoder.feed(Array("\u{1B}[A\u{1B}OB\u{1B}[1~\u{1B}[4~\u{1B}OH\u{1B}[F\u{1B}[5~\u{1B}[Z".utf8))
            == [.up, .down, .home, .end, .home, .end, .pageUp, .backTab])
    }

    @Test("a lone Esc waits for more, then is Esc; a sequence split across reads is one key")
    mutating func escape() {
        #expect(decoder.feed([0x1B]).isEmpty && decoder.isWaiting)
        #expect(decoder.flush() == [.escape])
        #expect(decoder.feed([0x1B, 0x5B]).isEmpty)
        #expect(decoder.feed([0x41]) == [.up])
    }

    @Test("control keys, Enter, Tab, UTF-8 characters; unknown sequences (F5, Ctrl-Up) are skipped whole")
    mutating func characters() {
        #expect(decoder.feed(Array("\u{12}\r\tq é".utf8)) == [.control("r"), .enter, .tab, .character("q"), .character(" "), .character("é")])
        #expect(decoder.feed(Array("\u{1B}[15~\u{1B}[1;5Aj".utf8)) == [.character("j")])
    }

    @Test("key names as tests write them")
    func names() {
        #expect(LiveKey(name: "ctrl+r") == .control("r"))
        #expect(LiveKey(name: "PgDn") == .pageDown)
        #expect(LiveKey(name: "space") == .character(" "))
        #expect(LiveKey(name: "nonsense") == nil)
        #expect(LiveKey.pageDown.description == "pagedown")
    }
}
