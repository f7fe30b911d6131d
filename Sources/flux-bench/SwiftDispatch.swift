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
