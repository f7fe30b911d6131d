import Testing
@testable import FluxTable

@Suite("Display width")
struct DisplayWidthSpec {
    @Test("ASCII counts one column a character")
    func ascii() {
        #expect(DisplayWidth.of("Hello, world") == 12)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test("East Asian wide characters count two columns")
    func wide() {
        #expect(DisplayWidth.of("表示") == 4)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("ＡＢ") == 4)
    }

    @Test("combining marks and zero-width characters count nothing")
    func zeroWidth() {
        #expect(DisplayWidth.of("Cafe\u{301}") == 4)
        #expect(DisplayWidth.of("a\u{200B}b") == 2)
    }

    @Test("emoji count two columns, a narrow symbol with the emoji selector too")
    func emoji() {
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("🍣 sushi") == 8)
        #expect(DisplayWidth.of("❤\u{FE0F}") == 2)
        #expect(DisplayWidth.of("❤") == 1)
    }

    @Test("ANSI escape sequences count nothing: colours, and hyperlinks with their URL")
    func escapes() {
        #expect(DisplayWidth.of("\u{1B}[1;31mred\u{1B}[0m") == 3)
        #expect(DisplayWidth.of("\u{1B}]8;;https://example.com\u{1B}\\link\u{1B}]8;;\u{1B}\\") == 4)
        #expect(DisplayWidth.of("\u{1B}]0;title\u{07}x") == 1)
    }

    @Test("cutting keeps whole characters and ends in the ellipsis")
    func truncate() {
        #expect(DisplayWidth.truncate("Hello, world", to: 8) == "Hello, …")
        #expect(DisplayWidth.truncate("Hello, world", to: 12) == "Hello, world")
        #expect(DisplayWidth.truncate("Hello, world", to: 8, ellipsis: "...") == "Hello...")
        #expect(DisplayWidth.truncate("表示の設定", to: 6) == "表示…")
        #expect(DisplayWidth.truncate("表示の設定", to: 5) == "表示…")
        #expect(DisplayWidth.truncate("Cafe\u{301}s!", to: 5) == "Cafe\u{301}…")
        #expect(DisplayWidth.truncate("abc", to: 0) == "")
        #expect(DisplayWidth.truncate("abcdef", to: 2, ellipsis: "...") == "ab")
    }

    @Test("cutting styled text keeps escapes whole and resets the style before the ellipsis")
    func truncateEscapes() {
        #expect(DisplayWidth.truncate("\u{1B}[31mred pepper\u{1B}[0m", to: 5) == "\u{1B}[31mred \u{1B}[0m…")
    }

    @Test("the estimate used without a UTF-8 locale agrees with glibc's wcwidth on common characters")
    func estimateMatchesWcwidth() throws {
        let locale = try #require(UTF8Locale.shared)
        let samples: [Unicode.Scalar] = ["a", "é", "表", "한", "😀", "🍣", "\u{301}", "\u{200B}", "✓", "›", "Ａ"]
        for scalar in samples {
            let glibc = locale.withCurrent { wcwidth in Int(wcwidth(Int32(bitPattern: scalar.value))) }
            #expect(DisplayWidth.estimatedWidth(scalar) == glibc, "U+\(String(scalar.value, radix: 16))")
        }
    }
}
