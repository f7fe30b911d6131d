import Flux
@testable import flux_bench
@testable import FluxFeatures
import FluxLua
import Testing

/// The same state as `State`, read only through `Encodable`: what a view of a state without field readers
/// shows, for comparison with one read through them.
struct EncodedOnly<State: Encodable>: Encodable {
    var state: State
    func encode(to encoder: any Encoder) throws { try state.encode(to: encoder) }
}

struct ShowNextSample: Action {
    static let name = "samples.next"
}

/// Holds each of its samples in turn: the first, then the next one on every `samples.next`.
final class SampleStore<State: Encodable>: Store<State> {
    init(name: String, samples: [State], dispatcher: Dispatcher) {
        var rest = samples.dropFirst()
        super.init(name: name, state: samples[0], dispatcher: dispatcher)
        on(ShowNextSample.self) { state, _ in
            if let next = rest.popFirst() { state = next }
        }
    }
}

/// Every field reader a state can have: each kind of value, an optional both ways, a renamed key, a name
/// longer than Lua's short strings.
struct EveryKindState: Codable, Equatable, FieldReadable {
    enum Mood: String, Codable { case calm, busy }
    struct Inner: Codable, Equatable {
        var label = "inner"
        var numbers = [1, 2, 3]
    }

    var count = 7
    var ratio = 0.25
    var whole = 2.0
    var isOn = true
    var title = "every kind"
    var note: String?
    var size: Int?
    var mood = Mood.busy
    var inner = Inner()
    var tags = ["a", "b"]
    var small: Int8 = -3
    var big: UInt64 = 12
    var single: Float = 1.5
    var renamed = "under another key"
    var aFieldWhoseNameIsLongerThanLuasShortStrings = 41

    enum CodingKeys: String, CodingKey {
        case count, ratio, whole, isOn, title, note, size, mood, inner, tags, small, big, single
        case renamed = "other_key"
        case aFieldWhoseNameIsLongerThanLuasShortStrings
    }

    static let fields: [StateField<Self>] = [
        StateField("count", \.count),
        StateField("ratio", \.ratio),
        StateField("whole", \.whole),
        StateField("isOn", \.isOn),
        StateField("title", \.title),
        StateField("note", \.note),
        StateField("size", \.size),
        StateField("mood", \.mood),
        StateField("inner", \.inner),
        StateField("tags", \.tags),
        StateField("small", \.small),
        StateField("big", \.big),
        StateField("single", \.single),
        StateField("other_key", \.renamed),
        StateField("aFieldWhoseNameIsLongerThanLuasShortStrings", \.aFieldWhoseNameIsLongerThanLuasShortStrings),
    ]
}

@Suite("A state's field readers read what its Encodable conformance writes")
struct StateFieldReadersSpec {
    /// Compares, for each sample in turn, the views of two stores holding it: one read through the field
    /// readers, one through `Encodable`. Every field `encode(to:)` writes, keys it does not, numeric keys;
    /// nested tables key by key, and read-only both. Returns the differences, one string a sample ("" when
    /// none).
    func differences<State: FieldReadable & SendableMetatype>(_ samples: [State]) throws -> [String] {
        let dispatcher = Dispatcher()
        let stores = (SampleStore(name: "fast", samples: samples, dispatcher: dispatcher),
                      SampleStore(name: "encoded", samples: samples.map(EncodedOnly.init), dispatcher: dispatcher))
        let host = FluxHost(dispatcher: dispatcher)
        defer { withExtendedLifetime(stores) {} }
        try host.run(#"""
        flux.subscribe("fast", function(state) fast = state end)
        flux.subscribe("encoded", function(state) encoded = state end)

        local function show(value)
          return math.type(value) or type(value) .. (type(value) ~= "table" and type(value) ~= "userdata" and " " .. tostring(value) or "")
        end
        local function compare(a, b, path, out)
          if type(a) ~= type(b) or math.type(a) ~= math.type(b) then
            out[#out + 1] = path .. ": " .. show(a) .. " read, " .. show(b) .. " encoded"
          elseif type(a) == "table" or type(a) == "userdata" then
            if pcall(function() a.written = 1 end) then out[#out + 1] = path .. ": writable" end
            if #a ~= #b then out[#out + 1] = path .. ": length " .. #a .. ", encoded " .. #b end
            local keys = 0
            for _ in pairs(a) do keys = keys + 1 end
            for key in pairs(b) do
              keys = keys - 1
              compare(a[key], b[key], path .. "." .. tostring(key), out)
            end
            if keys ~= 0 then out[#out + 1] = path .. ": " .. keys .. " keys more than encoded" end
          elseif a ~= b then
            out[#out + 1] = path .. ": " .. tostring(a) .. " read, " .. tostring(b) .. " encoded"
          end
        end
        local unknown = {"missing", "", "Count", "count ", "other key", "renamed", 0, 1, 2, -1, 2.5, true}
        function differences()
          local out = {}
          for _, key in ipairs(unknown) do compare(fast[key], encoded[key], "state[" .. tostring(key) .. "]", out) end
          local fields = 0
          for key in pairs(encoded) do
            fields = fields + 1
            compare(fast[key], encoded[key], "state." .. key, out)
          end
          if fields == 0 then out[#out + 1] = "no fields encoded" end
          compare(fast, encoded, "state", out)
          return table.concat(out, "; ")
        end
        """#)
        var found: [String] = []
        for _ in samples {
            guard case let .string(text) = try host.run("return differences()").first else { return ["no answer"] }
            found.append(text)
            try host.run(#"flux.dispatch("samples.next")"#)
        }
        return found
    }

    @Test("every kind of field, an optional set and unset, a renamed key, a long name")
    func everyKind() throws {
        let set = EveryKindState(note: "a note", size: 3, mood: .calm)
        #expect(try differences([EveryKindState(), set]) == ["", ""])
    }

    @Test("the bench's state")
    func bench() throws {
        var changed = BenchState()
        changed.count = 41
        changed.items.append("one more")
        #expect(try differences([BenchState(), changed]) == ["", ""])
    }

    @Test("the annotation filter's state: a group selected or not, filters on and off")
    func annotationFilter() throws {
        let samples = [
            AnnotationFilterState(),
            AnnotationFilterState(enabled: [.hideEverything, .issueAssignedToMe], selectedFilterGroup: .issues),
            AnnotationFilterState(enabled: [.shared], selectedFilterGroup: .general),
        ]
        #expect(try differences(samples) == ["", "", ""])
    }

    @Test("a board game's state: under way, won, drawn; tic-tac-toe and connect four")
    func boardGame() throws {
        var won = BoardGameState.ticTacToe
        for cell in [0, 3, 1, 4, 2] { try won.place(at: cell) }
        var drawn = BoardGameState.ticTacToe
        for cell in [0, 1, 2, 4, 3, 5, 7, 6, 8] { try drawn.place(at: cell) }
        var connectFour = BoardGameState.connectFour
        try connectFour.place(at: 38)
        #expect(try differences([BoardGameState.ticTacToe, won, drawn, connectFour]) == ["", "", "", ""])
    }

    @Test("the issue states: no blueprint selected, one selected with issues, assignees set and not")
    func issues() throws {
        let records = [
            Issue(id: 1, blueprint: Blueprint.samples[0].id, title: "Crack in the wall", assignee: "me"),
            Issue(id: 2, blueprint: Blueprint.samples[0].id, title: "Door sticks", status: .closed),
            Issue(id: 3, blueprint: Blueprint.samples[1].id, title: "Leak"),
        ]
        let none = IssueState(issues: records)
        var selected = none
        selected.selectedBlueprint = Blueprint.samples[0].id
        selected.runQuery()
        #expect(try differences([IssueState(), none, selected]) == ["", "", ""])
        let filters = AnnotationFilterState(enabled: [.issueAssignedToMe])
        #expect(try differences([VisibleIssuesState(issues: none, filters: filters),
                                 VisibleIssuesState(issues: selected, filters: AnnotationFilterState()),
                                 VisibleIssuesState(issues: selected, filters: filters)]) == ["", "", ""])
    }

    /// Dispatches through `samples` with a subscriber that keeps every seventh view, collecting garbage
    /// every fifty changes (so the slots of views nobody kept are handed out again), then reads `field` of
    /// every kept view: what each reads, in order.
    func keptReadings<State: FieldReadable & SendableMetatype>(_ samples: [State], field: String) throws -> [String] {
        let dispatcher = Dispatcher()
        let store = SampleStore(name: "kept", samples: samples, dispatcher: dispatcher)
        let host = FluxHost(dispatcher: dispatcher)
        defer { withExtendedLifetime(store) {} }
        try host.run(#"""
        kept, changes = {}, 0
        flux.subscribe("kept", function(state)
          if changes % 7 == 0 then kept[#kept + 1] = state end
          changes = changes + 1
          if changes % 50 == 0 then collectgarbage() end
        end)
        """#)
        for _ in samples.dropFirst() { try host.run(#"flux.dispatch("samples.next")"#) }
        let read = try host.run("""
        local out = {}
        for i, state in ipairs(kept) do out[i] = tostring(state.\(field)) end
        return table.concat(out, " ")
        """)
        guard case let .string(text) = read.first else { return ["no answer"] }
        return text.split(separator: " ").map(String.init)
    }

    @Test("kept views read their own state's numbers and flags after later changes reuse the slots of the others")
    func keptViews() throws {
        let counts = Array(0 ..< 700)
        let kept = counts.filter { $0 % 7 == 0 }
        // Stored in the existential's own buffer.
        let bench = counts.map { count in
            var state = BenchState()
            state.count = count
            return state
        }
        #expect(try keptReadings(bench, field: "count") == kept.map(String.init))
        // Stored in a box: larger than the buffer.
        let every = counts.map { EveryKindState(count: $0, ratio: Double($0) / 4, isOn: $0 % 2 == 0) }
        #expect(try keptReadings(every, field: "count") == kept.map(String.init))
        #expect(try keptReadings(every, field: "ratio") == kept.map { "\(Double($0) / 4)" })
        #expect(try keptReadings(every, field: "isOn") == kept.map { "\($0 % 2 == 0)" })
    }
}
