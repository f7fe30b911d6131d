import Foundation
import Flux
import FluxTable
import Testing
@testable import FluxLua

/// A Swift store for the `flux` module specs: a counter and a list of labels. Its views read through its
/// field readers (the shelf's and the census's, through `Encodable`).
struct TallyState: Codable, Equatable, FieldReadable {
    var count = 0
    var labels: [String] = []

    static let fields: [StateField<Self>] = [
        StateField("count", \.count),
        StateField("labels", \.labels),
    ]
}

struct Tally: Action {
    static let name = "tally.add"
    var by = 1
    var label: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        by = try container.decodeIfPresent(Int.self, forKey: .by) ?? 1
        label = try container.decodeIfPresent(String.self, forKey: .label)
    }
}

struct Boom: Action {
    static let name = "tally.boom"
}

final class TallyStore: Store<TallyState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "tally", state: TallyState(), dispatcher: dispatcher)
        on(Tally.self) { state, action in
            state.count += action.by
            if let label = action.label { state.labels.append(label) }
        }
        on(Boom.self) { _, _ in throw FluxScriptError("boom") }
    }
}

/// A host with the tally store, collecting what it reports.
final class Harness {
    let dispatcher = Dispatcher()
    let tally: TallyStore
    let host: FluxHost
    var reports: [String] = []

    init() {
        tally = TallyStore(dispatcher: dispatcher)
        host = FluxHost(dispatcher: dispatcher)
        host.report = { [unowned self] in reports.append($0) }
    }

    @discardableResult
    func run(_ source: String) throws -> [LuaValue] { try host.run(source) }

    func error(_ source: String) -> String {
        do {
            try host.run(source)
            return "no error"
        } catch let error as LuaError {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}

@Suite("The flux module")
struct FluxModuleSpec {
    let world = Harness()

    @Test("flux.dispatch by name, with a payload table or as one table, changes the Swift store")
    func dispatch() throws {
        try world.run(#"""
        flux.dispatch("tally.add")
        flux.dispatch("tally.add", {by = 10, label = "ten"})
        flux.dispatch{type = "tally.add", by = 100}
        """#)
        #expect(world.tally.state == TallyState(count: 111, labels: ["ten"]))
    }

    @Test("dispatch errors are Lua errors with a clear message, and state is unchanged")
    func dispatchErrors() throws {
        #expect(world.error(#"flux.dispatch("tally.nope")"#) == "chunk:1: unknown action 'tally.nope' (:actions lists them)")
        #expect(world.error(#"flux.dispatch("tally.add", {by = "x"})"#) == "chunk:1: tally.add: field 'by': expected an integer, got string")
        #expect(world.error(#"flux.dispatch("tally.boom")"#) == "chunk:1: store 'tally' failed on 'tally.boom': boom")
        #expect(world.error(#"flux.dispatch(42)"#) == "chunk:1: bad argument #1 to 'dispatch' (action name or table expected, got number)")
        #expect(world.error(#"flux.dispatch{by = 1}"#) == "chunk:1: bad argument #1 to 'dispatch' (field 'type' must name an action, got nil)")
        #expect(world.tally.state == TallyState())
    }

    @Test("every flux function names itself in its argument errors, and a bad call changes nothing")
    func argumentErrorsNameTheFunction() throws {
        try world.run("flux.view('tallyView', {store = 'tally', render = function(s) return {sections = {}} end})")
        let calls: [(call: String, error: String)] = [
            ("flux.stores(1)", "#1 to 'stores'"),
            ("flux.state('tally', 2)", "#2 to 'state'"),
            ("flux.actions('tally', 2)", "#2 to 'actions'"),
            ("flux.dispatch('tally.add', {}, 3)", "#3 to 'dispatch'"),
            ("flux.group('g', print, 3)", "#3 to 'group'"),
            ("flux.undo(1)", "#1 to 'undo'"),
            ("flux.redo(1)", "#1 to 'redo'"),
            ("flux.subscribe('tally', print, 3)", "#3 to 'subscribe'"),
            ("flux.subscriptions('tally', 2)", "#2 to 'subscriptions'"),
            ("flux.store({name = 'x'}, 2)", "#2 to 'store'"),
            ("flux.view('v', {}, 3)", "#3 to 'view'"),
            ("flux.views(1)", "#1 to 'views'"),
            ("flux.model('tallyView', 2)", "#2 to 'model'"),
            ("flux.render('tallyView', 40, 3)", "#3 to 'render'"),
            ("flux.watch('tallyView', print, 3)", "#3 to 'watch'"),
        ]
        for (call, error) in calls {
            #expect(world.error(call).hasPrefix("chunk:1: bad argument \(error) (no more than"), "\(call)")
        }
        #expect(world.error("flux.group('g', 42)") == "chunk:1: bad argument #2 to 'group' (function expected, got number)")
        #expect(world.error("flux.view('v', 42)") == "chunk:1: bad argument #2 to 'view' (table expected, got number)")
        #expect(world.error("flux.store{name = 'bad\\xFF'}")
            == #"chunk:1: bad argument #1 to 'store' (field 'name': name "bad\xFF" is not valid UTF-8)"#)
        #expect(world.error("flux.store{name = 'n', on = {['a\\xFF'] = print}}")
            == #"chunk:1: bad argument #1 to 'store' (field 'on': name "a\xFF" is not valid UTF-8)"#)
        #expect(world.tally.state == TallyState())
        #expect(world.dispatcher.stores.map(\.name) == ["tally"])
        #expect(world.host.views.names == ["tallyView"])
        #expect(world.host.subscriptions.isEmpty)
    }

    @Test("a function the host's user adds to flux reports bad arguments under its own name")
    func addedFunction() throws {
        world.host.addFunction(named: "twice") { arguments in
            try arguments.expect(atMost: 1)
            guard let number = arguments.stack.integer(at: 1) else {
                throw arguments.error(1, "integer expected, got \(arguments.stack.type(at: 1).name)")
            }
            arguments.stack.push(number * 2)
            return 1
        }
        #expect(try world.run("return flux.twice(21)") == [.integer(42)])
        #expect(world.error("flux.twice('x')") == "chunk:1: bad argument #1 to 'twice' (integer expected, got string)")
        #expect(world.error("flux.twice(1, 2)") == "chunk:1: bad argument #2 to 'twice' (no more than 1 argument expected, got 2)")
    }

    @Test("flux.stores, flux.actions and flux.state list and snapshot; changing a snapshot changes no store")
    func introspection() throws {
        let result = try world.run(#"""
        local s = flux.state("tally")
        s.count = 99
        return flux.stores()[1], flux.actions("tally")[1], flux.state("tally").count
        """#)
        #expect(result == [.string("tally"), .string("tally.add"), .integer(0)])
    }

    @Test("a subscriber hears the state now, then every change with the previous state; cancel stops it")
    func subscribe() throws {
        try world.run(#"""
        heard = {}
        sub = flux.subscribe("tally", function(state, previous)
          heard[#heard + 1] = state.count .. "/" .. (previous and previous.count or "-")
        end)
        flux.dispatch("tally.add", {by = 2})
        flux.dispatch("tally.add", {by = 3})
        sub:cancel()
        sub:cancel()
        flux.dispatch("tally.add")
        """#)
        #expect(try world.run("return table.concat(heard, ' ')") == [.string("0/- 2/0 5/2")])
    }

    @Test("a to-be-closed subscription is cancelled at the end of its scope")
    func toBeClosed() throws {
        try world.run(#"""
        count = 0
        do
          local sub <close> = flux.subscribe("tally", function() count = count + 1 end)
          flux.dispatch("tally.add")
        end
        flux.dispatch("tally.add")
        """#)
        #expect(try world.run("return count") == [.integer(2)])
    }

    @Test("the state a subscriber keeps is read-only and never changes")
    func proxyIsStable() throws {
        try world.run(#"""
        flux.dispatch("tally.add", {label = "a"})
        kept = nil
        flux.subscribe("tally", function(state) kept = kept or state end)
        flux.dispatch("tally.add", {label = "b"})
        """#)
        #expect(try world.run("return kept.count, #kept.labels, kept.labels[1]") == [.integer(1), .integer(1), .string("a")])
        #expect(world.error("kept.count = 5").contains("read-only"))
        #expect(world.error("kept.labels[1] = 'x'").contains("read-only"))
        #expect(try world.run("local n = 0 for k in pairs(kept) do n = n + 1 end return n") == [.integer(2)])
    }

    @Test("a Swift store's state reads a field by a key made at run time; a key that only starts like one reads nil")
    func stateKeysByBytes() throws {
        try world.run(#"""
        flux.dispatch("tally.add", {by = 3})
        flux.subscribe("tally", function(state)
          read = {state["cou" .. "nt"], state["count\0"], state["coun"], state["counts"], state[""]}
        end)
        """#)
        #expect(try world.run("return read[1], read[2], read[3], read[4], read[5]") == [.integer(3), .nil, .nil, .nil, .nil])
    }

    @Test("an error in a subscriber is reported with a traceback and the subscription stays")
    func subscriberError() throws {
        try world.run(#"""
        calls = 0
        flux.subscribe("tally", function(state)
          calls = calls + 1
          if state.count == 1 then error("bad subscriber") end
        end)
        flux.dispatch("tally.add")
        flux.dispatch("tally.add")
        """#)
        #expect(world.tally.state.count == 2)
        #expect(try world.run("return calls") == [.integer(3)])
        #expect(world.reports.count == 1)
        #expect(world.reports.first?.contains("bad subscriber") == true)
        #expect(world.reports.first?.contains("stack traceback") == true)
    }

    @Test("a failing follow-up is reported by the host; once the host is gone, the dispatcher reports it itself")
    func followUpAfterHost() throws {
        let dispatcher = Dispatcher()
        let tally = TallyStore(dispatcher: dispatcher)
        var reports: [String] = []
        do {
            let host = FluxHost(dispatcher: dispatcher)
            host.report = { reports.append($0) }
            try host.run(#"""
            flux.subscribe("tally", function(state)
              if state.count == 1 then flux.dispatch("tally.boom") end
            end)
            flux.store{name = "notes", state = {n = 0}, on = {["tally.add"] = function(s) s.n = s.n + 1 return s end}}
            flux.dispatch("tally.add")
            """#)
            #expect(dispatcher.stores.map(\.name) == ["tally", "notes"])
        }
        #expect(dispatcher.stores.map(\.name) == ["tally"])
        #expect(reports.count == 1)
        #expect(reports.first?.contains("follow-up 'tally.boom' failed") == true)

        // The host is gone: its subscriptions ended with it, and a follow-up failing now must reach the
        // dispatcher's own report, not the freed host.
        let queue = tally.subscribe { state in if state.count == 2 { try? dispatcher.dispatch(Boom()) } }
        defer { queue.cancel() }
        try dispatcher.dispatch(dispatcher.registry.decode(Tally.name, json: nil))
        #expect(tally.state.count == 2)
        #expect(reports.count == 1)
    }

    @Test("a subscription nobody keeps goes on until cancelled, whatever the garbage collector does")
    func unkeptSubscription() throws {
        try world.run(#"""
        heard = 0
        flux.subscribe("tally", function(state) heard = state.count end)
        local kept = flux.subscribe("tally", function(state) kept_heard = state.count end)
        collectgarbage() collectgarbage()
        flux.dispatch("tally.add")
        kept:cancel()
        collectgarbage()
        flux.dispatch("tally.add")
        """#)
        #expect(try world.run("return heard, kept_heard") == [.integer(2), .integer(1)])
    }

    @Test("flux.subscriptions lists the live subscriptions in the order they were made, so an unkept one can be cancelled")
    func listingSubscriptions() throws {
        try world.run(#"""
        heard = 0
        flux.subscribe("tally", function(state) heard = heard + 1 end)
        flux.subscribe("tally", function(state) heard = heard + 1 end)
        local kept = flux.subscribe("tally", function() end)
        kept:cancel()
        """#)
        #expect(try world.run("return #flux.subscriptions(), #flux.subscriptions('tally'), #flux.subscriptions('nope')")
                == [.integer(2), .integer(2), .integer(0)])
        #expect(try world.run("return tostring(flux.subscriptions()[1])") == ["flux.subscription(tally)"])
        try world.run(#"""
        for _, sub in ipairs(flux.subscriptions("tally")) do sub:cancel() end
        heard = 0
        flux.dispatch("tally.add")
        """#)
        #expect(try world.run("return heard, #flux.subscriptions()") == [.integer(0), .integer(0)])
        #expect(world.error("flux.subscriptions(1)").contains("store or view name expected, got number"))
    }

    @Test("reloading a plugin cancels the subscriptions its last run made")
    func reloadCancelsSubscriptions() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("echo-\(UUID().uuidString).lua")
        try #"""
        flux.subscribe("tally", function(state) calls = (calls or 0) + 1 end)
        """#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try world.host.loadPlugin(at: file.path)
        try world.host.reload(world.host.plugins[0])
        try world.run("flux.dispatch('tally.add')")
        // The new run's subscriber heard its first state and the change; the last run's is gone.
        let name = world.host.plugins[0].name
        #expect(try world.run("return flux.globals('\(name)').calls, #flux.subscriptions()") == [.integer(2), .integer(1)])
    }

    @Test("a Lua store takes part in dispatch: handlers, undo, and rollback together with a Swift store")
    func luaStore() throws {
        try world.run(#"""
        flux.store{
          name = "audit",
          state = {entries = {}},
          on = {
            ["tally.add"] = function(state, action)
              if action.by < 0 then error("negative") end
              table.insert(state.entries, action.by)
              return state
            end,
            ["audit.clear"] = function(state) state.entries = {} return state end,
          },
        }
        flux.dispatch("tally.add", {by = 4})
        """#)
        #expect(try world.run("return #flux.state('audit').entries") == [.integer(1)])
        #expect(world.error(#"flux.dispatch("tally.add", {by = -1})"#).contains("store 'audit' failed on 'tally.add'"))
        #expect(world.tally.state.count == 4, "the Swift store was rolled back")
        #expect(try world.run("return #flux.state('audit').entries") == [.integer(1)])
        try world.run(#"flux.dispatch("audit.clear")"#)
        #expect(try world.run("return #flux.state('audit').entries, flux.undo(), #flux.state('audit').entries") ==
                [.integer(0), .boolean(true), .integer(1)])
    }

    @Test("a Lua store's handler changes a copy: shared tables stay shared, cycles stay cycles, the published state is untouched")
    func handlerCopy() throws {
        try world.run(#"""
        local shared = {n = 1}
        local initial = {a = shared, b = shared, list = {1, 2, 3}, name = "x"}
        initial.self = initial
        flux.store{
          name = "copies",
          state = initial,
          on = {
            ["copies.touch"] = function(state)
              assert(state.a == state.b, "shared table copied twice")
              assert(state.self == state, "cycle lost")
              assert(state.a ~= shared, "not a copy")
              state.a.n = state.a.n + 1
              table.insert(state.list, 4)
              return state
            end,
          },
        }
        kept = flux.state("copies")
        shared.n = 100 -- the store copied its initial state: changing the script's table changes nothing
        flux.dispatch("copies.touch")
        """#)
        #expect(try world.run("return kept.a.n, #kept.list, flux.state('copies').a.n, flux.state('copies').b.n, #flux.state('copies').list, flux.state('copies').name")
                == [.integer(1), .integer(3), .integer(2), .integer(2), .integer(4), .string("x")])
        #expect(world.error("local t = {} for i = 1, 1001 do t = {t} end flux.store{name = 'deep', state = t}")
                .contains("table nested deeper than 1000 levels"))
        #expect(try world.run("local t = {} for i = 1, 999 do t = {t} end flux.store{name = 'deep', state = t} return #flux.stores()")
                == [.integer(3)])
    }

    @Test("in a handler, after wait_for, flux.state reads the state the awaited store just made, Swift or Lua")
    func waitForReadsNewState() throws {
        try world.run(#"""
        flux.store{name = "seen", state = {counts = {}}, wait_for = {"tally"}, on = {
          ["tally.add"] = function(state)
            table.insert(state.counts, flux.state("tally").count)
            return state
          end,
        }}
        flux.store{name = "doubled", state = {values = {}}, wait_for = {"seen"}, on = {
          ["tally.add"] = function(state)
            local counts = flux.state("seen").counts
            table.insert(state.values, 2 * counts[#counts])
            return state
          end,
        }}
        flux.dispatch("tally.add", {by = 3})
        flux.dispatch("tally.add", {by = 4})
        """#)
        #expect(try world.run("return table.concat(flux.state('seen').counts, ' '), table.concat(flux.state('doubled').values, ' ')") ==
                [.string("3 7"), .string("6 14")])
    }

    @Test("flux.group makes one undo step of many actions")
    func group() throws {
        try world.run(#"""
        flux.group("Three at once", function()
          flux.dispatch("tally.add")
          flux.dispatch("tally.add")
          flux.dispatch("tally.add")
        end)
        flux.undo()
        """#)
        #expect(world.tally.state.count == 0)
        #expect(world.dispatcher.history.redoLabels == ["Three at once"])
    }

    @Test("a Lua view provider renders a model; flux.model and flux.render reach it by name")
    func views() throws {
        try world.run(#"""
        flux.view("tally", {store = "tally", render = function(state)
          local cells = {}
          for i, label in ipairs(state.labels) do cells[i] = {title = label, accessory = "checkmark"} end
          return {sections = {{header = "Count " .. state.count, height = 28, cells = cells}}}
        end})
        flux.dispatch("tally.add", {label = "first"})
        """#)
        #expect(try world.run("return flux.model('tally').sections[1].cells[1].title") == [.string("first")])
        let text = try #require(world.run("return flux.render('tally', 30)").first)
        #expect(text.description.contains("Count 1"))
        #expect(world.error("flux.render('nope')").contains("unknown view 'nope'"))
    }

    @Test("flux.watch hands over the diff of a view after each change")
    func watch() throws {
        try world.run(#"""
        flux.view("tally", {store = "tally", render = function(state)
          local cells = {}
          for i, label in ipairs(state.labels) do cells[i] = {title = label} end
          return {sections = {{header = "Labels", cells = cells}}}
        end})
        diffs = {}
        w = flux.watch("tally", function(diff) diffs[#diffs + 1] = diff end)
        flux.dispatch("tally.add", {label = "a"})
        flux.dispatch("tally.add", {label = "b"})
        flux.dispatch("tally.add")
        """#)
        #expect(try world.run("return #diffs, diffs[1].inserted, diffs[2].text:find('+', 1, true) ~= nil") ==
                [.integer(2), .integer(1), .boolean(true)])
    }

    @Test("a runaway loop stops under a budget and the stores are intact afterwards")
    func runaway() throws {
        world.host.vm.instructionBudget = 1_000_000
        try world.run(#"flux.dispatch("tally.add")"#)
        #expect(world.error("while true do end").contains("instruction budget exceeded"))
        try world.run(#"flux.dispatch("tally.add")"#)
        #expect(world.tally.state.count == 2)
    }
}
