import Foundation
import Testing

/// `:goto N` in a session, golden at 80 columns without color: any entry of the journal, a Lua store's
/// too, as one step `:undo` takes back; out of reach or failing, a clear error and nothing changed.
@Suite("fluxsh :goto in a session")
struct SessionGotoSpec {
    let state = temporaryPath("goto-sessions")
    var environment: [String: String] { ["XDG_STATE_HOME": state, "COLUMNS": "80"] }

    func fluxsh(_ input: String) throws -> FluxshProcess.Result {
        try FluxshProcess.run(["--no-color", "--session", "travel"], input: input, environment: environment)
    }

    /// A Lua store adding up its actions' `by`; its handler fails while the global `broken` is set.
    static let tally = #"flux.store{name = "tally", state = {n = 0}, on = {["tally.add"] = function(s, a) if broken then error("broken", 0) end s.n = s.n + a.by return s end}}"#

    @Test("goto beyond the 100 undo steps, then :undo; out of reach, a failing replay and a compaction's cut are errors")
    func gotoInSession() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try fluxsh("""
            \(Self.tally)
            :dispatch ticTacToe.placeToken {index = 4}
            for i = 1, 150 do flux.dispatch("tally.add", {by = i}) end
            :goto 11
            flux.state("tally").n
            flux.state("ticTacToe").board[5]
            :undo
            flux.state("tally").n
            :goto 1
            flux.state("tally").n
            :goto 0
            flux.state("ticTacToe").board[5]
            :goto 200
            broken = true
            :goto 100
            flux.state("tally").n
            broken = false
            :goto 151
            :session compact 10
            :goto 100
            :goto 148
            flux.state("tally").n
            """)
        // The compaction's line ends with the file's sizes, which vary: its beginning is checked.
        var lines = first.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 15 && lines[11].hasPrefix("compacted: dropped 146 entries, journal 10 entries (147-156), file "), "\(lines)")
        if lines.count == 15 { lines[11] = "compacted: …" }
        #expect(lines.joined(separator: "\n") == """
            at journal entry @11 of 151: one step, :undo goes back
            55
            X
            undid goto 11
            11325
            at journal entry @1 of 153: one step, :undo goes back
            0
            at journal entry @0 of 154 (before the first): one step, :undo goes back
            nil
            0
            at journal entry @151 of 155: one step, :undo goes back
            compacted: …
            at journal entry @148 of 156: one step, :undo goes back
            10878

            """)
        #expect(first.errors == """
            no entry 200 to go to: :goto reaches entries 0-155
            cannot go to entry 100: entry 2: store 'tally' failed on 'tally.add': broken
            no entry 100 to go to: :goto reaches entries 147-156 (entries 1-146 were compacted away)

            """)
        // Another process: the journal, its snapshots and the Lua store's states are all there.
        let again = try fluxsh("\(Self.tally)\n:goto 150\nflux.state(\"tally\").n\n:undo\nflux.state(\"tally\").n\n:goto 148\n")
        #expect(again.output == """
            at journal entry @150 of 157: one step, :undo goes back
            11175
            undid goto 150
            10878
            already as right after journal entry @148

            """)
        #expect(again.errors.isEmpty)
    }

    @Test("a watched view shows the travel's change once; :history and :show list the travel as a step; a travel to where the stores are says so")
    func gotoWatchedAndListed() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let result = try fluxsh("""
            :dispatch ticTacToe.placeToken {index = 4}
            :dispatch ticTacToe.placeToken {index = 0}
            :watch ticTacToe
            :goto 1
            :goto 1
            :history
            :show 3
            :undo
            :history
            """)
        #expect(result.output == """
            watching ticTacToe: its changes print after every action
            ticTacToe:
            ~ section O's turn (header X's turn → O's turn)
            ~ O's turn: . . . (title O . . → . . .)
            at journal entry @1 of 2: one step, :undo goes back
            already as right after journal entry @1
              #1 ticTacToe.placeToken {index = 4}  → ticTacToe
              #2 ticTacToe.placeToken {index = 0}  → ticTacToe
              #3 goto 1  → ticTacToe
              ── now (:undo goes up, :redo down) ──
            #3 goto 1
              ticTacToe.board[1]: "O" → nil
              ticTacToe.gameInstruction: "X's turn" → "O's turn"
              ticTacToe.playerToMove: "X" → "O"
            ticTacToe:
            ~ section X's turn (header O's turn → X's turn)
            ~ X's turn: O . . (title . . . → O . .)
            undid goto 1
              #1 ticTacToe.placeToken {index = 4}  → ticTacToe
              #2 ticTacToe.placeToken {index = 0}  → ticTacToe
              ── now (:undo goes up, :redo down) ──
              #3 goto 1  → ticTacToe  (undone)

            """)
        #expect(result.errors.isEmpty)
    }
}
