import Flux

/// Workload 1: actions through a Swift store with undo history on, each subscriber reading the counter.
///
/// A fresh dispatcher and store per run, so every run does the same work (history filling included).
/// The action is built once: `dispatch` takes `any Action`, as a caller with a ready action would.
struct SwiftDispatch {
    /// The subscribers, each reading `state.count`.
    let subscribers: Int
    /// The actions dispatched per run.
    let actions: Int

    /// The seconds one run of `actions` dispatches takes.
    func run() throws -> Double {
        let dispatcher = Dispatcher()
        let store = BenchStore(dispatcher: dispatcher)
        let sink = Sink()
        let subscriptions = (0 ..< subscribers).map { _ in
            store.subscribe { state in sink.total &+= state.count }
        }
        let action: any Action = Increment()
        let seconds = try Measure.seconds {
            for _ in 0 ..< actions { try dispatcher.dispatch(action) }
        }
        withExtendedLifetime(subscriptions) {}
        guard store.state.count == actions else {
            throw BenchmarkFailure("swift-dispatch: the store counted \(store.state.count) of \(actions) actions")
        }
        return seconds
    }
}

extension SwiftDispatch {
    /// Workload 1's figures: throughput with each subscriber count, against the 2M actions/s target.
    static func figures(_ options: Options) throws -> [Figure] {
        let historyLimit = Dispatcher().history.limit
        return try options.subscribers.map { subscribers in
            progress("swift-dispatch: \(subscribers) subscriber(s), \(options.runs) runs of \(options.actions) actions")
            if options.warmUp { _ = try SwiftDispatch(subscribers: subscribers, actions: max(1, options.actions / 10)).run() }
            let workload = SwiftDispatch(subscribers: subscribers, actions: options.actions)
            var seconds = Samples()
            for _ in 0 ..< options.runs { seconds.add(try workload.run()) }
            let rate = seconds.map(Options.millionsPerSecond(options.actions))
            var notes = "undo history on (limit \(historyLimit))"
            if subscribers == 10 { notes += "; target ≥ 2: " + (rate.median >= 2 ? "met" : "BELOW the target") }
            return Figure(workload: "1 Swift store dispatch", name: "\(subscribers) subscriber\(subscribers == 1 ? "" : "s")",
                          samples: rate, unit: "M actions/s", notes: notes)
        }
    }
}
