import Flux
import FluxLua
import FluxSession
import Foundation

/// The one Lua VM workloads 2, 3 and 4 share, with the Swift bench store on its dispatcher.
///
/// Sharing the VM keeps the comparison fair: the pure-Lua baseline runs under the same interpreter
/// settings (hooks, allocator, memory cap) as the `flux` module calls it is compared with.
final class LuaBench {
    let dispatcher = Dispatcher()
    let store: BenchStore
    let host: FluxHost

    /// The session the dispatcher is kept in, for workload 2 in a session.
    private(set) var session: Session?

    init() {
        store = BenchStore(dispatcher: dispatcher)
        host = FluxHost(dispatcher: dispatcher)
        // A subscriber error would make the figures meaningless: stop at once.
        host.report = { message in fatalError("flux-bench: \(message)") }
    }

    /// A bench whose dispatcher is kept in a new session in `directory`, as `fluxsh --session` keeps it.
    convenience init(sessionIn directory: URL) throws {
        self.init()
        let session = try Session.open(name: "bench", directory: directory, dispatcher: dispatcher) { message in
            fatalError("flux-bench: \(message)")
        }
        session.restore()
        session.attach()
        self.session = session
    }

    /// Runs `source`, which must return a function `loop(n)` that does the workload `n` times and
    /// returns what its subscriber last read; returns that function.
    func loop(_ source: String, chunkName: String) throws -> LuaRef {
        let stack = host.vm.stack
        try stack.load(source, chunkName: chunkName)
        try stack.pcall(arguments: 0, results: 1)
        guard stack.type(at: -1) == .function else {
            throw BenchmarkFailure("\(chunkName): the chunk must return a function")
        }
        let loop = stack.ref(at: -1)
        stack.pop()
        return loop
    }

    /// The seconds `loop(count)` takes, and what it returned.
    func time(_ loop: LuaRef, count: Int) throws -> (seconds: Double, seen: Int) {
        var seen = 0
        let seconds = try Measure.seconds {
            seen = try host.vm.call(loop, results: 1, arguments: { $0.push(count) }) { lua, results in
                lua.integer(at: results.lowerBound) ?? -1
            }
        }
        return (seconds, seen)
    }

    /// The ten strings of the bench state, as a Lua list literal.
    static let itemsLiteral = "{" + BenchState().items.map { "\"\($0)\"" }.joined(separator: ", ") + "}"
}

extension LuaBench {
    /// The figures of workloads 2, 3 and 4 (those chosen), keyed by workload name, with the ratios of 2
    /// and 4 to the baseline 3.
    ///
    /// The workloads run in interleaved rounds: load from elsewhere falls on the baseline and on what it
    /// is compared with alike, and each ratio is taken within a round.
    static func figures(_ options: Options) throws -> [String: [Figure]] {
        let bench = LuaBench()
        let count = options.luaActions
        var runners: [(name: String, run: (Int) throws -> Double)] = []
        if options.wants("lua-redux") { runners.append(("lua-redux", try LuaRedux(bench: bench).run)) }
        if options.wants("dispatch-lua") { runners.append(("dispatch-lua", try DispatchLua(bench: bench).run)) }
        if options.wants("dispatch-lua"), options.inSession {
            // Its own VM and dispatcher, kept in a session: the chunk ends with the save fluxsh makes after a line.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flux-bench-session-\(getpid())")
            defer { try? FileManager.default.removeItem(at: folder) }
            let kept = try LuaBench(sessionIn: folder)
            let inSession = try DispatchLua(bench: kept)
            runners.append(("dispatch-lua-session", { count in
                try Measure.seconds {
                    _ = try inSession.run(count: count)
                    kept.session?.save()
                }
            }))
        }
        if options.wants("lua-store") { runners.append(("lua-store", try LuaStoreDispatch(bench: bench).run)) }
        guard !runners.isEmpty else { return [:] }
        progress("\(runners.map(\.name).joined(separator: ", ")): \(options.runs) rounds of \(count) dispatches")
        if options.warmUp { for runner in runners { _ = try runner.run(max(1, count / 10)) } }
        var seconds: [String: Samples] = [:]
        for _ in 0 ..< options.runs {
            for runner in runners { seconds[runner.name, default: Samples()].add(try runner.run(count)) }
        }
        let rates = seconds.mapValues { $0.map(Options.millionsPerSecond(count)) }
        func notes(_ name: String, _ label: String) -> String {
            guard let rate = rates[name], let baseline = rates["lua-redux"] else { return "run lua-redux too for \(label)" }
            return ratioNote(rate.ratio(to: baseline), label: label)
        }
        var figures: [String: [Figure]] = [:]
        if let rate = rates["dispatch-lua"] {
            figures["dispatch-lua"] = [Figure(workload: "2 flux.dispatch from Lua", name: "Swift store, Lua subscriber",
                                              samples: rate, unit: "M actions/s", notes: notes("dispatch-lua", "2 ÷ 3"))]
        }
        if let rate = rates["dispatch-lua-session"], let plain = rates["dispatch-lua"] {
            figures["dispatch-lua"]?.append(Figure(workload: "2 flux.dispatch from Lua", name: "the same in a session",
                                                   samples: rate, unit: "M actions/s",
                                                   notes: ratioNote(rate.ratio(to: plain), label: "in a session ÷ without")))
        }
        if let rate = rates["lua-redux"] {
            figures["lua-redux"] = [Figure(workload: "3 pure-Lua Redux store", name: "same VM, 1 listener",
                                           samples: rate, unit: "M actions/s", notes: "the baseline of 2 and 4")]
        }
        if let rate = rates["lua-store"] {
            figures["lua-store"] = [Figure(workload: "4 flux.store (Lua store)", name: "Lua handler, Lua subscriber",
                                           samples: rate, unit: "M actions/s", notes: notes("lua-store", "4 ÷ 3"))]
        }
        return figures
    }
}
