import Flux
import FluxFeatures
import FluxLua
import FluxTable
import FluxViews
import Testing
@testable import FluxShell

/// Live views driven by keys, as a person uses them, on a screen nobody sees (what `flux.pilot` does).
@Suite("Live screen")
struct LiveScreenSpec {
    let shell = Shell(write: { _ in }, writeError: { _ in })

    private func open(_ views: String..., width: Int = 50, height: Int = 16) throws -> LiveScreen {
        try LiveScreen(views: views, actions: shell.host, width: width, height: height)
    }

    private func press(_ screen: LiveScreen, _ keys: String...) {
        for key in keys { screen.press(LiveKey(name: key)!) }
    }

    @Test("Enter on a filter row toggles its filter; u undoes and Ctrl-R redoes it, as :undo and :redo")
    func toggleFilter() throws {
        let screen = try open("annotationFilter")
        press(screen, "j", "j", "j", "down", "enter") // from Hide everything: Shared, Private, Assigned, Open issues only
        #expect(screen.selectedCell?.title == "Open issues only")
        #expect(shell.features!.annotationFilter.state.isEnabled(.issueStatus))
        #expect(screen.status == "annotationFilter.toggleFilter {filter = \"issues.status\"} → 2 rows changed in annotationFilter"
            || screen.status.hasPrefix("annotationFilter.toggleFilter {filter = \"issues.status\"} → "))
        #expect(screen.text.contains("▸  Open issues only ✓"))
        press(screen, "u")
        #expect(!shell.features!.annotationFilter.state.isEnabled(.issueStatus))
        #expect(screen.status.hasPrefix("undid "))
        press(screen, "ctrl+r")
        #expect(shell.features!.annotationFilter.state.isEnabled(.issueStatus))
        press(screen, "q")
        #expect(screen.isFinished)
    }

    @Test("a change made elsewhere redraws the view; a moved row keeps the cursor, a deleted one passes it on")
    func cursorFollowsItsRow() throws {
        try shell.host.dispatch(actionNamed: "issues.selectBlueprint", payloadSource: "{blueprint = 'A-101'}")
        for title in ["Crash", "Typo", "Slow"] {
            try shell.host.dispatch(actionNamed: "issues.create", payloadSource: "{title = '\(title)'}")
        }
        var changes = 0
        let screen = try open("issues", height: 20)
        screen.onChange = { changes += 1 }
        press(screen, "down") // #2 Typo
        #expect(screen.selectedCell?.title == "#2 Typo")
        press(screen, "enter") // closes it: it moves to "Closed", the cursor with it
        #expect(screen.selectedCell?.title == "#2 Typo")
        #expect(shell.features!.issues.state.issues.first { $0.id == 2 }?.status == .closed)
        #expect(changes == 1)
        // From the prompt, as it were: the view follows.
        try shell.host.dispatch(actionNamed: "issues.edit", payloadSource: "{id = 2, title = 'Typo in README'}")
        #expect(screen.text.contains("▸  #2 Typo in README"))
        #expect(changes == 2)
        press(screen, "c") // the view's key: close #2, already closed — an error, state unchanged
        #expect(screen.statusIsError)
        press(screen, "o") // reopen: back among the open issues, cursor along
        #expect(shell.features!.issues.state.issues.first { $0.id == 2 }?.status == .open)
        #expect(screen.selectedCell?.title == "#2 Typo in README")
        #expect(changes == 3)
    }

    @Test("disabled rows are skipped and never dispatch; a view with none enabled has no cursor")
    func disabledRows() throws {
        let board = try open("connectFour")
        press(board, "end") // the column numbers row is disabled: End stops on the last board row
        #expect(board.selectedCell?.id == "row-5")
        let issues = try open("issues") // no blueprint: one disabled row
        #expect(issues.selectedCell == nil)
        press(issues, "enter")
        #expect(issues.status == "no row to act on")
    }

    @Test("a view that fails to render keeps its last good table and says why in the status line")
    func failingRender() throws {
        _ = try shell.host.run("""
            flux.store{name = "counter", state = {n = 0}, on = {["counter.add"] = function(s) s.n = s.n + 1 end}}
            flux.view("counter", {store = "counter", render = function(s)
              if s.n == 2 then error("two is unlucky") end
              return {sections = {{cells = {{title = "n = " .. s.n, action = "counter.add"}}}}}
            end})
            """)
        let screen = try open("counter", width: 60, height: 6)
        press(screen, "enter")
        #expect(screen.text.contains("n = 1"))
        press(screen, "enter")
        #expect(screen.statusIsError && screen.status.contains("two is unlucky"))
        #expect(screen.text.contains("n = 1")) // the last good table stays
        press(screen, "enter")
        #expect(screen.text.contains("n = 3") && !screen.statusIsError)
    }

    @Test("a view that goes away while open closes its screen with a message")
    func viewGone() throws {
        let screen = try open("ticTacToe")
        shell.host.views.unregister(named: "ticTacToe")
        press(screen, "down")
        #expect(screen.isFinished)
        #expect(screen.closingMessage?.contains("'ticTacToe'") == true)
    }

    @Test("two views stacked; Tab moves the cursor between them; a 1×1 screen still works")
    func stackedAndTiny() throws {
        let screen = try open("ticTacToe", "connectFour", width: 40, height: 20)
        #expect(screen.focusedView == "ticTacToe")
        press(screen, "tab", "right", "enter")
        #expect(screen.focusedView == "connectFour")
        #expect(shell.features!.connectFour.state.board.compactMap { $0 }.count == 1)
        screen.resize(width: 1, height: 1)
        #expect(screen.lines().count == 1)
        #expect(screen.text == "▸")
        press(screen, "down", "pgdn", "home", "?", "x")
        #expect(screen.lines().count == 1)
    }

    @Test("a million rows open and scroll at once: only what is on screen is drawn")
    func millionRows() throws {
        let cells = (1 ... 1_000_000).map { CellViewModel(id: String($0), title: "row \($0)") }
        let big = TableViewModel(sections: [SectionModel(id: "rows", headerTitle: "Rows", cells: cells)])
        shell.host.views.register(ViewProvider(name: "big", store: shell.features!.ticTacToe, render: { _ in big }))
        let screen = try open("big", width: 30, height: 10)
        press(screen, "end")
        #expect(screen.text.contains("▸  row 1000000"))
        for _ in 0 ..< 100 { press(screen, "pageup") } // 7 lines on screen: 6 a page
        #expect(screen.selectedCell?.title == "row 999400")
        #expect(screen.lines().count == 10)
    }

    @Test(":open without a terminal says so; flux.view refuses a key naming an unknown action")
    func refusals() throws {
        var errors = ""
        let shell = Shell(write: { _ in }, writeError: { errors += $0 })
        #expect(!shell.runCommand(":open ticTacToe"))
        #expect(errors.contains("a view opens on a terminal"))
        #expect(throws: (any Error).self) {
            try shell.host.run("flux.view('x', {store = 'ticTacToe', keys = {d = 'ticTacToe.explode'}, render = function() return {} end})")
        }
        #expect(shell.host.views.provider(named: "x") == nil)
        #expect(throws: ViewError.self) { try LiveScreen(views: ["nope"], actions: shell.host, width: 10, height: 5) }
    }

    @Test("NO_COLOR and a terminal that is not UTF-8: no escape sequences, ASCII marks")
    func plainTerminal() throws {
        let screen = try LiveScreen(views: ["annotationFilter"], actions: shell.host, width: 40, height: 8,
                                    options: RenderOptions(width: 40, color: false, unicode: false))
        #expect(!screen.lines().contains { $0.bytes.contains(0x1B) })
        #expect(screen.text.contains(">  Hide everything"))
        #expect(screen.text.contains("up/down move"))
    }
}
