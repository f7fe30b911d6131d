import FluxLua

/// One item of the bridged state: one field of each kind the bridge converts.
struct BridgeItem: Codable, Equatable {
    var id: Int
    var name: String
    var price: Double
    var inStock: Bool
    var note: String?
}

/// The bridged state: a thousand items.
struct BridgeState: Codable, Equatable {
    var items: [BridgeItem]

    /// A thousand items; every other one has a note, so both forms of the optional are bridged.
    static let sample = BridgeState(items: (0 ..< 1000).map { index in
        BridgeItem(id: index, name: "item \(index)", price: Double(index) * 1.25,
                   inStock: index.isMultiple(of: 3), note: index.isMultiple(of: 2) ? "note \(index)" : nil)
    })
}

/// Workload 5: a Swift state of 1,000 items to a Lua table (`LuaEncoder`) and back (`LuaDecoder`).
struct Bridging {
    /// The times of one run, each per round trip.
    struct Times {
        var encode = 0.0
        var decode = 0.0
        var roundTrip = 0.0
    }

    private let vm = LuaVM()
    /// Round trips per run: one takes about a millisecond, too short to time alone.
    let repeats: Int

    /// Times encoding alone, decoding alone and whole round trips, `repeats` of each.
    func run() throws -> Times {
        let stack = vm.stack
        let state = BridgeState.sample
        var times = Times()

        times.encode = try Measure.seconds {
            for _ in 0 ..< repeats {
                try LuaEncoder().push(state, to: stack)
                stack.pop()
            }
        } / Double(repeats)

        try LuaEncoder().push(state, to: stack)
        var decoded: BridgeState?
        times.decode = try Measure.seconds {
            for _ in 0 ..< repeats { decoded = try LuaDecoder().decode(BridgeState.self, from: stack, at: -1) }
        } / Double(repeats)
        stack.pop()
        guard decoded == state else { throw BenchmarkFailure("bridge: the decoded state differs") }

        times.roundTrip = try Measure.seconds {
            for _ in 0 ..< repeats {
                try LuaEncoder().push(state, to: stack)
                decoded = try LuaDecoder().decode(BridgeState.self, from: stack, at: -1)
                stack.pop()
            }
        } / Double(repeats)
        return times
    }
}

extension Bridging {
    /// Workload 5's figures: milliseconds per round trip, and per push and per decode.
    static func figures(_ options: Options) throws -> [Figure] {
        progress("bridge: \(options.runs) runs")
        let bridging = Bridging(repeats: 50)
        _ = try bridging.run() // warm-up
        var encode = Samples(), decode = Samples(), roundTrip = Samples()
        for _ in 0 ..< options.runs {
            let times = try bridging.run()
            encode.add(times.encode * 1000)
            decode.add(times.decode * 1000)
            roundTrip.add(times.roundTrip * 1000)
        }
        let workload = "5 Swift ⇄ Lua bridging"
        return [
            Figure(workload: workload, name: "1,000 items, round trip", samples: roundTrip, unit: "ms",
                   notes: "5 fields each (Int, String, Double, Bool, String?)"),
            Figure(workload: workload, name: "LuaEncoder push", samples: encode, unit: "ms"),
            Figure(workload: workload, name: "LuaDecoder decode", samples: decode, unit: "ms"),
        ]
    }
}
