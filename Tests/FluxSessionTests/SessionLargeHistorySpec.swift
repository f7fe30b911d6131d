import Flux
import Foundation
import GRDB
import Testing
@testable import FluxSession

/// An undo history of a large state (saved in pieces: ``SessionChunks``) across a restart: every saved
/// step comes back, each is decoded only when an undo or redo reaches it, a damaged one costs the steps
/// beyond it when reached (never a store's state), and a history longer than the limit says what it kept.
@Suite("Sessions keeping the undo history of a large state")
struct SessionLargeHistorySpec {
    let folder = sessionFolder()

    struct Touch: Action, Equatable {
        static let name = "sheet.touch"
        var row: Int
    }

    /// 1,000 rows of 100 characters: about 100 kB of JSON, past the size stored in pieces.
    struct Sheet: Codable, Equatable {
        var rows = (0 ..< 1_000).map { String(repeating: "\($0 % 10)", count: 100) }
        var touched = 0
    }

    final class SheetStore: Store<Sheet> {
        init(dispatcher: Dispatcher) {
            super.init(name: "sheet", state: Sheet(), dispatcher: dispatcher)
            on(Touch.self) { state, action in
                state.rows[action.row] = "touched \(action.row)"
                state.touched += 1
            }
        }
    }

    final class Messages {
        var all: [String] = []
        var text: String { all.joined(separator: "\n") }
    }

    func start(limit: Int = 100, messages: Messages = Messages()) throws -> (Dispatcher, SheetStore, Session) {
        let dispatcher = Dispatcher()
        dispatcher.history.limit = limit
        let sheet = SheetStore(dispatcher: dispatcher)
        let session = try Session.open(name: "sheet", directory: folder, dispatcher: dispatcher, report: { messages.all.append($0) })
        session.restore()
        session.attach()
        return (dispatcher, sheet, session)
    }

    /// `lines` lines, each touching one row; closed. Returns the state after each line, the first before any.
    func saved(lines: Int) throws -> [Sheet] {
        let (dispatcher, sheet, session) = try start()
        var states = [sheet.state]
        for row in 0 ..< lines {
            try dispatcher.dispatch(Touch(row: row * 7))
            session.save()
            states.append(sheet.state)
        }
        session.close()
        return states
    }

    @Test("every saved step comes back after a restart, costs the history no decoded state, and undoes and redoes exactly")
    func everyStepBack() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let states = try saved(lines: 12)
        let messages = Messages()
        let (dispatcher, sheet, session) = try start(messages: messages)
        #expect(sheet.state == states[12])
        #expect(dispatcher.history.undoLabels.count == 12)
        #expect(messages.all.isEmpty, "\(messages.text)")
        // Decoded only when reached: the steps held as their lists of pieces cost nothing to keep.
        #expect(dispatcher.history.cost == 0)
        for back in (0 ..< 12).reversed() {
            #expect(try dispatcher.undo())
            #expect(sheet.state == states[back])
        }
        #expect(try dispatcher.undo() == false)
        for forward in 1 ... 12 {
            #expect(try dispatcher.redo())
            #expect(sheet.state == states[forward])
        }
        session.close()
    }

    @Test("undo across two restarts: steps undone before the first come back as redo steps after the second")
    func undoAcrossRestarts() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let states = try saved(lines: 6)
        do {
            let (dispatcher, sheet, session) = try start()
            for _ in 0 ..< 2 { try dispatcher.undo() }
            #expect(sheet.state == states[4])
            session.close()
        }
        let (dispatcher, sheet, session) = try start()
        #expect(sheet.state == states[4])
        #expect(dispatcher.history.undoLabels.count == 4 && dispatcher.history.redoLabels.count == 2)
        try dispatcher.redo()
        #expect(sheet.state == states[5])
        for _ in 0 ..< 5 { try dispatcher.undo() }
        #expect(sheet.state == states[0])
        session.close()
    }

    @Test("a piece of a saved step damaged after the restart: the undo that reaches it says so, drops it with the steps beyond it, and changes no store")
    func damagedPieceAtUndo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let states = try saved(lines: 4)
        let (dispatcher, sheet, session) = try start()
        #expect(dispatcher.history.undoLabels.count == 4)
        try dispatcher.undo()
        #expect(sheet.state == states[3])
        // Every piece in the file made unreadable, as a damaged disk would: the states in memory stay.
        try session.database.write { db in try db.execute(sql: "UPDATE chunk SET data = X'FFFE'") }
        let error = try #require(throws: StepNotRestored.self) { try dispatcher.undo() }
        #expect(error.description.contains("it was dropped with the 2 undo steps beyond it"), "\(error)")
        #expect(sheet.state == states[3])
        #expect(dispatcher.history.undoLabels.isEmpty && dispatcher.history.redoLabels.count == 1)
        try dispatcher.redo()
        #expect(sheet.state == states[4])
        session.close()
    }

    @Test("a piece missing at the restart: the steps from it on are dropped and said, the state and the nearer steps stay")
    func missingPieceAtStart() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let states = try saved(lines: 4)
        do {
            // The second-oldest step's list names a piece that is not there.
            let (_, _, session) = try start()
            try session.database.write { db in
                try db.execute(sql: """
                    UPDATE history SET changes = replace(changes, '\(SessionChunks.prefix)', '\(SessionChunks.prefix)999999999,')
                    WHERE position = (SELECT position FROM history ORDER BY position LIMIT 1 OFFSET 1)
                    """)
            }
            session.close()
        }
        let messages = Messages()
        let (dispatcher, sheet, session) = try start(messages: messages)
        #expect(sheet.state == states[4])
        #expect(messages.text.contains("is missing from table 'chunk'"), "\(messages.text)")
        #expect(dispatcher.history.undoLabels.count == 2, "\(messages.text)")
        for _ in 0 ..< 2 { try dispatcher.undo() }
        #expect(sheet.state == states[2])
        session.close()
    }

    @Test("a saved history longer than the undo limit: the newest steps come back and the start says how many")
    func longerThanLimit() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let states = try saved(lines: 8)
        let messages = Messages()
        let (dispatcher, sheet, session) = try start(limit: 5, messages: messages)
        #expect(dispatcher.history.undoLabels.count == 5)
        #expect(messages.text.contains("kept the newest 5 of its 8 undo steps (the undo history keeps at most 5)"), "\(messages.text)")
        for _ in 0 ..< 5 { try dispatcher.undo() }
        #expect(sheet.state == states[3])
        session.close()
    }
}
