import Flux
import FluxLua

/// The one Lua VM workloads 2, 3 and 4 share, with the Swift bench store on its dispatcher.
///
/// Sharing the VM keeps the comparison fair: the pure-Lua baseline runs under the same interpreter
/// settings (hooks, allocator, memory cap) as the `flux` module calls it is compared with.
final class LuaBench {
    let dispatcher = Dispatcher()
    let store: BenchStore
    let host: FluxHost

    init() {
        store = BenchStore(dispatcher: dispatcher)
        host = FluxHost(dispatcher: dispatcher)
        // A subscriber error would make the figures meaningless: stop at once.
        host.report = { message in fatalError("flux-bench: \(message)") }
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
