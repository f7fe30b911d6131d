import Flux

/// The state every dispatch workload changes: a counter and ten strings, the shape of a small app state.
/// Its fields read one by one (a Lua subscriber's `state.count`) without encoding it.
struct BenchState: Codable, Equatable, Sendable, FieldReadable {
    var count = 0
    var items: [String] = (1 ... 10).map { "item \($0)" }

    static let fields: [StateField<Self>] = [
        StateField("count", \.count),
        StateField("items", \.items),
    ]
}

/// The one action the dispatch workloads send.
struct Increment: Action {
    static let name = "bench.increment"
}

/// The Swift store the dispatch workloads send actions to: it counts them.
final class BenchStore: Store<BenchState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "bench", state: BenchState(), dispatcher: dispatcher)
        on(Increment.self) { state, _ in state.count += 1 }
    }
}

/// Where Swift subscribers put what they read, so the optimiser cannot drop the read.
final class Sink {
    var total = 0
}

/// A workload's result did not match what it was asked to do: its figure would be meaningless.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
