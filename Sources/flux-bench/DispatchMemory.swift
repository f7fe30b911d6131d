import Flux

/// Workload 7, memory: resident memory before and after one and two million dispatches through a Swift
/// store with undo history on (the default limit). History is bounded, so memory must stay flat.
struct DispatchMemory {
    /// Resident memory, in bytes, at each point.
    struct Readings {
        var before = 0
        var afterFirst = 0
        var afterSecond = 0
    }

    /// Dispatches between readings.
    let actions: Int

    func run() throws -> Readings {
        let dispatcher = Dispatcher()
        let store = BenchStore(dispatcher: dispatcher)
        let sink = Sink()
        let subscription = store.subscribe { state in sink.total &+= state.count }
        let action: any Action = Increment()
        func reading() throws -> Int {
            guard let bytes = Measure.residentBytes() else { throw BenchmarkFailure("memory: /proc/self/statm is not readable") }
            return bytes
        }
        // Fill the history first: its steady size is not growth.
        for _ in 0 ..< 10 * dispatcher.history.limit { try dispatcher.dispatch(action) }
        var readings = Readings()
        readings.before = try reading()
        for _ in 0 ..< actions { try dispatcher.dispatch(action) }
        readings.afterFirst = try reading()
        for _ in 0 ..< actions { try dispatcher.dispatch(action) }
        readings.afterSecond = try reading()
        withExtendedLifetime(subscription) {}
        guard dispatcher.history.undoLabels.count == dispatcher.history.limit, dispatcher.history.limit > 0 else {
            throw BenchmarkFailure("memory: undo history is off or not full")
        }
        return readings
    }
}

extension DispatchMemory {
    /// Workload 7's memory figures: resident memory before, after N and after 2N dispatches, and growth.
    static func figures(_ options: Options) throws -> [Figure] {
        progress("memory: \(options.actions) and \(2 * options.actions) dispatches")
        let readings = try DispatchMemory(actions: options.actions).run()
        let first = Double(readings.afterFirst - readings.before) / mebibyte
        let second = Double(readings.afterSecond - readings.afterFirst) / mebibyte
        let count = { (n: Int) in n.isMultiple(of: 1_000_000) ? "\(n / 1_000_000)M" : "\(n)" }
        let workload = "9 memory, undo history on"
        let mebibytes = { (bytes: Int) in Samples([Double(bytes) / mebibyte]) }
        return [
            Figure(workload: workload, name: "RSS before", samples: mebibytes(readings.before), unit: "MiB",
                   notes: "history full (limit \(Dispatcher().history.limit))"),
            Figure(workload: workload, name: "RSS after \(count(options.actions)) dispatches", samples: mebibytes(readings.afterFirst),
                   unit: "MiB", notes: "growth \(fixed(first, decimals: 2)) MiB"),
            Figure(workload: workload, name: "RSS after \(count(2 * options.actions)) dispatches",
                   samples: mebibytes(readings.afterSecond), unit: "MiB",
                   notes: "growth \(fixed(second, decimals: 2)) MiB: " + (abs(second) < 1 ? "flat" : "GROWS with dispatches")),
        ]
    }
}
