import Flux
import Testing

/// What changed between two states, path by path, and the payload fields an action reads.
@Suite struct StateDiffSpec {
    struct Game: Encodable {
        var board: [String?]
        var instruction: String
        var scores: [String: Int]
        var meta: Meta?
    }

    struct Meta: Encodable {
        var moves: Int
        var ratio: Double
    }

    func diff(_ old: Game, _ new: Game) throws -> StateDiff {
        StateDiff(store: "game", old: try StateValue(encoding: old), new: try StateValue(encoding: new))
    }

    @Test("each changed path shows old → new, with Lua's 1-based indices and quoted odd keys")
    func paths() throws {
        let old = Game(board: [nil, nil, nil], instruction: "X's turn", scores: ["x": 0, "two words": 1], meta: nil)
        var new = old
        new.board[1] = "X"
        new.instruction = "O's turn"
        new.scores["two words"] = 2
        new.meta = Meta(moves: 1, ratio: 0.5)
        #expect(try diff(old, new).lines() == [
            "game.board[2]: nil → \"X\"",
            "game.instruction: \"X's turn\" → \"O's turn\"",
            "game.meta: nil → {moves = 1, ratio = 0.5}",
            "game.scores[\"two words\"]: 1 → 2",
        ])
        #expect(try diff(old, old).isEmpty)
    }

    @Test("on a narrow line, a change whose path leaves too little room puts its values on the next line, within the width")
    func narrow() throws {
        let old = Game(board: [nil, nil], instruction: "X's turn", scores: [:], meta: nil)
        var new = old
        new.board[1] = "X"
        new.instruction = "O's turn, and a long way to go"
        let lines = try diff(old, new).lines(width: 30)
        #expect(lines == [
            "game.board[2]: nil → \"X\"",
            "game.instruction:",
            "    \"X's turn\" → \"O's turn, a…",
        ])
        #expect(lines.allSatisfy { $0.count <= 30 })
    }

    @Test("whole-number keys show as Lua's [10], in the order of the numbers, not as the text \"10\"")
    func wholeNumberKeys() throws {
        let old = try StateValue(encoding: ["cells": [Int: String]()])
        let new = try StateValue(encoding: ["cells": [2: "b", 10: "c", 1000: "a"]])
        #expect(StateDiff(store: "sparse", old: old, new: new).lines() == [
            "sparse.cells[2]: nil → \"b\"",
            "sparse.cells[10]: nil → \"c\"",
            "sparse.cells[1000]: nil → \"a\"",
        ])
        #expect(new.text() == "{cells = {[2] = \"b\", [10] = \"c\", [1000] = \"a\"}}")
    }

    @Test("a list that grows or shrinks shows the items added or gone; a deeper change shows at its own path")
    func lists() throws {
        let old = Game(board: ["X"], instruction: "", scores: [:], meta: Meta(moves: 1, ratio: 1))
        var new = old
        new.board = ["X", "O", "X"]
        new.meta?.moves = 2
        #expect(try diff(old, new).lines(unicode: false) == [
            "game.board[2]: nil -> \"O\"",
            "game.board[3]: nil -> \"X\"",
            "game.meta.moves: 1 -> 2",
        ])
        #expect(try diff(new, old).lines(unicode: false).first == "game.board[2]: \"O\" -> nil")
    }

    @Test("large values are cut to the line; many changes are summed up")
    func compact() throws {
        let old = Game(board: Array(repeating: nil, count: 50), instruction: "", scores: [:], meta: nil)
        var new = old
        new.instruction = String(repeating: "long ", count: 1000)
        new.board = Array(repeating: "X", count: 50)
        let lines = try diff(old, new).lines(width: 60, maximum: 3)
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.count <= 60 })
        #expect(lines[3] == "game: 48 more changes")
        let whole = StateDiff(store: "s", old: .array([]), new: try StateValue(encoding: Array(repeating: "word", count: 100)))
        #expect(StateDiff(store: "s", old: .integer(1), new: try StateValue(encoding: ["a"])).lines() == ["s: 1 → {\"a\"}"])
        #expect(whole.changes.count == 100)
        #expect(try StateValue(encoding: Array(repeating: 1, count: 1000)).text(limit: 20) == "{1, 1, 1, 1, 1, 1, …")
    }

    struct Move: Action {
        static let name = "game.move"
        enum Side: String, Codable { case left, right }
        let index: Int
        let note: String?
        let side: Side
        let path: [Int]
        let meta: [String: Double]
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            index = try container.decode(Int.self, forKey: .index)
            guard index >= 1 else { throw DecodingError.dataCorruptedError(forKey: .index, in: container, debugDescription: "too small") }
            note = try container.decodeIfPresent(String.self, forKey: .note)
            side = try container.decode(Side.self, forKey: .side)
            path = try container.decode([Int].self, forKey: .path)
            meta = try container.decode([String: Double].self, forKey: .meta)
        }
        func encode(to encoder: any Encoder) throws {}
        enum CodingKeys: String, CodingKey { case index, note, side, path, meta }
    }

    struct Reset: Action {
        static let name = "game.reset"
    }

    @Test("a Swift action's fields and types are read from its Decodable conformance, even one that refuses the made-up values")
    func derived() throws {
        var registry = ActionRegistry()
        try registry.register(Move.self)
        try registry.register(Reset.self)
        registry.register(name: "script.any") { decoder in
            _ = try decoder.singleValueContainer().decode(Bool.self)
            return Reset()
        }
        // The made-up index 0 is refused after it was read: only the fields asked for until then count.
        #expect(PayloadFields(deriving: "game.move", registry: registry)?.description == "{index: integer}")
        #expect(PayloadFields(deriving: "game.reset", registry: registry)?.description == "{}")
        #expect(PayloadFields(deriving: "script.any", registry: registry) == nil)
        #expect(PayloadFields(deriving: "nope", registry: registry) == nil)
        #expect(PayloadFields(declared: ["title": "string", "due": "number?"]).description == "{due: number?, title: string}")
    }

    struct Full: Action {
        static let name = "game.full"
        enum Side: String, Codable, CaseIterable { case left, right }
        let index: Int
        let note: String?
        let side: Side
        let path: [Int]
        let meta: [String: Double]
        let ratio: Double
        let flag: Bool
    }

    @Test("optional fields get a ?, enums their raw type (a case-iterable one lets the fields after it show), lists and tables their kind")
    func kinds() throws {
        var registry = ActionRegistry()
        try registry.register(Full.self)
        #expect(PayloadFields(deriving: "game.full", registry: registry)?.description
            == "{index: integer, note: string?, side: string, path: list, meta: table, ratio: number, flag: boolean}")
    }
}
