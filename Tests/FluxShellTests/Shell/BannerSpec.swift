@testable import FluxShell
import Testing

@Suite("The banner")
struct BannerSpec {
    @Test("the banner fits the terminal's width when it prints: on a narrow one each hint gets a line")
    func width() {
        let shell = Shell(write: { _ in }, writeError: { _ in })
        let wide = Fluxsh.banner(for: shell, width: 120)
        #expect(wide.contains("Try  :render annotationFilter   :dispatch"))
        let narrow = Fluxsh.banner(for: shell, width: 60)
        #expect(narrow.contains("Try\n  :render annotationFilter\n  :dispatch ticTacToe.placeToken {index = 4}\n"))
        #expect(!narrow.contains("Try  "))
        for width in [60, 80] {
            let lines = Fluxsh.banner(for: shell, width: width).split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= width }, "\(lines.filter { $0.count > width })")
        }
        #expect(Fluxsh.banner(for: shell, width: 80).hasPrefix(
            "FluxShell 0.1.0 — Lua 5.4 with Flux stores: annotationFilter, issues,\nvisibleIssues, ticTacToe, connectFour\n"))
    }
}
