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

    @Test("a mouse click (SGR and the older form) is a click from 0; the wheel is Up and Down; releases, drags and the right button are nothing; a report split across reads waits")
    mutating func mouse() {
        #expect(decoder.feed(Array("\u{1B}[<0;5;3M\u{1B}[<0;5;3m".utf8)) == [.click(line: 2, column: 4)])
        #expect(decoder.feed(Array("\u{1B}[<64;1;1M\u{1B}[<65;1;1M\u{1B}[<2;9;9M\u{1B}[<32;9;9Mj".utf8)) == [.up, .down, .character("j")])
        #expect(decoder.feed(Array("\u{1B}[M".utf8) + [32, 33 + 9, 33 + 0]) == [.click(line: 0, column: 9)])
        #expect(decoder.feed(Array("\u{1B}[<0;12".utf8)).isEmpty && decoder.isWaiting)
        #expect(decoder.feed(Array(";40M".utf8)) == [.click(line: 39, column: 11)])
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
