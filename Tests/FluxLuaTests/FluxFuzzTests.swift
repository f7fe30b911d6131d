import Foundation
import Flux
import Testing
@testable import FluxLua

/// Random Lua programs built from the `flux` API — subscribe, cancel, collectgarbage, dispatch, reload,
/// errors in every kind of callback — run in random order against Swift and Lua stores. The shell must
/// never crash, and every store must end equal to a fresh one given the dispatches that succeeded, in the
/// order they did.
///
/// `FLUX_FUZZ_STEPS` (default 1,000) and `FLUX_FUZZ_SEED` set the length and the seed of the run.
@Suite("Fuzzing the flux module")
struct FluxFuzzTests {
    /// The plugin every world loads: two Lua stores (one also handling the Swift store's action), and a
    /// subscription of its own that reloading cancels. Its handlers depend on nothing but state and action.
    static let plugin = #"""
    flux.store{name = "bag", state = {n = 0, items = {}, nested = {a = {b = {c = 0}}}, shared = {1, 2}}, on = {
      ["bag.put"] = function(s, a)
        if a.fail then error("bag refuses") end
        s.n = s.n + 1
        s.items[#s.items + 1] = a.v or 0
        if #s.items > 12 then table.remove(s.items, 1) end
        return s
      end,
      ["bag.deep"] = function(s, a) s.nested.a.b.c = s.nested.a.b.c + (a.v or 1) s.twice = s.nested.a return s end,
      ["bag.new"] = function(s) return {n = s.n, items = {}, nested = s.nested, shared = s.shared, list = {s.shared, s.shared}} end,
      ["bag.keep"] = function(s) stash = s s.n = s.n + 1 return s end,
      ["bag.same"] = function() end,
      ["tally.add"] = function(s, a) s.n = s.n + (a.by or 1) return s end,
    }}
    flux.store{name = "pair", wait_for = {"bag"}, state = {seen = 0}, on = {
      ["bag.put"] = function(s) s.seen = flux.state("bag").n return s end,
    }}
    plugin_heard = 0
    flux.subscribe("bag", function(state) plugin_heard = plugin_heard + #state.items end)
    """#

    /// What a subscriber's function may do, `K` replaced by a number.
    static let subscriberBodies = [
        "local _ = s.n",
        "for k, v in pairs(s) do local _ = k end local _ = #s",
        "pcall(rawset, s, 'n', 99)",
        "if fuel > 0 then fuel = fuel - 1 flux.dispatch('bag.put', {v = K}) end",
        "if fuel > 0 then fuel = fuel - 1 flux.dispatch('tally.add', {by = K}) end",
        "error('subscriber K fails')",
        "if subs[K] then subs[K]:cancel() end",
        "if me then me:cancel() me = nil end collectgarbage()",
        "collectgarbage('step')",
        "kept = s",
        "if fuel > 0 then fuel = fuel - 1 flux.dispatch('bag.put', {fail = true}) end",
        "setmetatable({}, {__gc = function() if fuel > 0 then fuel = fuel - 1 flux.dispatch('tally.add', {by = K}) end end})",
    ]

    /// The steps of a program, `K` replaced by a number and `BODY` by a subscriber's body.
    static let steps = [
        "subs[K] = flux.subscribe('bag', function(s, prev) BODY end)",
        "subs[K] = flux.subscribe('tally', function(s, prev) BODY end)",
        "subs[K] = flux.subscribe('pair', function(s, prev) BODY end)",
        "local me me = flux.subscribe('bag', function(s, prev) BODY end)",
        "if subs[K] then subs[K]:cancel() end",
        "subs[K] = nil",
        "collectgarbage()",
        "collectgarbage('step', K)",
        "flux.dispatch('bag.put', {v = K})",
        "flux.dispatch('bag.put', {fail = true})",
        "flux.dispatch('bag.deep', {v = K})",
        "flux.dispatch('bag.new')",
        "flux.dispatch('bag.keep')",
        "flux.dispatch('bag.same')",
        "flux.dispatch('tally.add', {by = K})",
        "flux.dispatch('tally.boom')",
        "flux.dispatch('no.such.action')",
        "flux.dispatch('bag.put', {v = K, extra = true})",
        "flux.group('g', function() flux.dispatch('bag.put', {v = K}) flux.dispatch('tally.add') end)",
        "flux.group('g', function() flux.dispatch('bag.put', {v = K}) error('group fails') end)",
        "flux.dispatch('bag.put', {v = K}) error('after a dispatch')",
        "if stash then pcall(function() stash.n = K end) end",
        "if kept then pcall(function() kept.n = K end) local _ = kept.n end",
        "setmetatable({}, {__gc = function() flux.dispatch('bag.put', {v = K}) end})",
        "setmetatable({}, {__gc = function() error('finalizer fails') end})",
        "RELOAD",
    ]

    @Test("random programs: no crash, every store equal to a replay of the successful dispatches")
    func fuzz() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["FLUX_FUZZ_STEPS"].flatMap(Int.init) ?? 1_000
        var random = SplitMix(seed: environment["FLUX_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5eed_f1e5)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flux-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fuzz.lua").path
        try Self.plugin.write(toFile: path, atomically: true, encoding: .utf8)

        let recorder = Recorder()
        var states: [String: String] = [:]
        var failures = 0
        do {
            let world = try FuzzWorld(plugin: path, recorder: recorder)
            try world.host.run("subs = {} fuel = 0")
            for _ in 0 ..< count {
                var step = Self.steps[random.next(below: Self.steps.count)]
                if step == "RELOAD" {
                    do { try world.host.reload(world.plugin) } catch { failures += 1 }
                    continue
                }
                step = step.replacingOccurrences(of: "BODY", with: Self.subscriberBodies[random.next(below: Self.subscriberBodies.count)])
                step = step.replacingOccurrences(of: "K", with: String(1 + random.next(below: 9)))
                // Follow-ups are bounded per step; old subscriptions go, so a run does not slow down.
                let program = """
                fuel = 3
                \(step)
                local all = flux.subscriptions()
                if #all > 40 then for i = 1, #all - 30 do all[i]:cancel() end end
                """
                do { try world.host.run(program) } catch { failures += 1 }
            }
            states = try world.states()
            // The world goes with finalizers pending: they find the host gone.
            try world.host.run("for i = 1, 20 do setmetatable({}, {__gc = function() flux.dispatch('bag.put', {v = i}) end}) end")
        }
        #expect(recorder.actions.count > count / 10, "too few dispatches succeeded to tell anything")
        #expect(failures > 0, "no step failed: the errors were not exercised")

        let replay = try FuzzWorld(plugin: path, recorder: Recorder())
        try replay.host.run("collectgarbage('stop')") // the plugin's own subscription only reads
        for action in recorder.actions { try replay.dispatcher.dispatch(action) }
        #expect(try replay.states() == states)
    }
}

/// A dispatcher with the tally store and the fuzz plugin loaded.
private final class FuzzWorld {
    let dispatcher = Dispatcher()
    let tally: TallyStore
    let host: FluxHost
    let plugin: Plugin

    init(plugin path: String, recorder: Recorder) throws {
        tally = TallyStore(dispatcher: dispatcher)
        dispatcher.middleware.append(recorder)
        host = FluxHost(dispatcher: dispatcher, vm: LuaVM(memoryLimit: 256 << 20))
        host.vm.instructionBudget = 5_000_000
        host.report = { _ in }
        try host.loadPlugin(at: path)
        plugin = try Plugin(at: path)
    }

    /// Every store's state as JSON, by store name.
    func states() throws -> [String: String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var states: [String: String] = [:]
        for store in dispatcher.stores {
            states[store.name] = String(decoding: try encoder.encode(AnyStoreState(store.encodableState)), as: UTF8.self)
        }
        return states
    }
}

/// Encodes whatever state a store has.
private struct AnyStoreState: Encodable {
    let state: any Encodable
    init(_ state: any Encodable) { self.state = state }
    func encode(to encoder: any Encoder) throws { try state.encode(to: encoder) }
}

/// Keeps every action that was dispatched successfully, in order.
private final class Recorder: Middleware {
    var actions: [any Action] = []
    func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        actions.append(action)
    }
    func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher) {
        self.actions.removeLast(actions)
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same program, or the same values.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
