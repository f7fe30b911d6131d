import Glibc

// flux-bench: fixed workloads, timed in a release build, printed as one table of medians.
// `flux-bench` runs them all; `flux-bench dispatch-lua` runs one alone (for callgrind).

/// The command line: which workloads, and how many runs of each.
struct Options {
    var runs = 5
    var shellRuns = 10
    var actions = 1_000_000
    var luaActions = 200_000
    var subscribers = [1, 10]
    var workloads: [String] = []

    static let workloads = [
        ("swift-dispatch", "1: Swift store, 1M actions, 1 and 10 subscribers"),
        ("dispatch-lua", "2: flux.dispatch from Lua into a Swift store, one Lua subscriber"),
        ("lua-redux", "3: pure-Lua Redux-style store in the same VM (baseline of 2 and 4)"),
        ("lua-store", "4: store defined with flux.store, one Lua subscriber"),
        ("bridge", "5: 1,000-item Swift state to a Lua table and back"),
        ("table", "6: FluxTable diff, render and patch render of 10,000 rows, 1% changed"),
        ("shell", "7: fluxsh start to first prompt, and its peak memory"),
        ("memory", "7: resident memory after 1M and 2M dispatches with undo history on"),
    ]

    static let usage = """
    usage: flux-bench [--runs N] [--shell-runs N] [--actions N] [--lua-actions N] [--subscribers N] [workload…]

    Runs every workload, or those named, and prints one table of medians over the runs.
      --runs N         runs per figure (default 5)
      --shell-runs N   runs of fluxsh (default 10)
      --actions N      Swift dispatches per run (default 1000000; memory reads after N and 2N)
      --lua-actions N  dispatches per run of the Lua workloads (default 200000)
      --subscribers N  only this many subscribers in swift-dispatch (default: 1, then 10)

    workloads:
    \(workloads.map { "  \($0.0.padding(to: 16))\($0.1)" }.joined(separator: "\n"))
    """

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func count(_ flag: String) throws -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                throw BenchmarkFailure("\(flag) needs a positive number\n\n\(Self.usage)")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--runs": runs = try count(argument)
            case "--shell-runs": shellRuns = try count(argument)
            case "--actions": actions = try count(argument)
            case "--lua-actions": luaActions = try count(argument)
            case "--subscribers": subscribers = [try count(argument)]
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            case let name where Self.workloads.contains { $0.0 == name }:
                if !workloads.contains(name) { workloads.append(name) }
            default:
                throw BenchmarkFailure("unknown argument '\(argument)'\n\n\(Self.usage)")
            }
        }
        if workloads.isEmpty { workloads = Self.workloads.map(\.0) }
    }

    func wants(_ name: String) -> Bool { workloads.contains(name) }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

/// Progress goes to standard error, so standard output is the table alone.
func progress(_ message: String) {
    printError("flux-bench: \(message)")
}

/// Writes a line to standard error (file descriptor 2: the `stderr` global is not concurrency-safe).
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// The 1-minute load average: how busy the machine was while the figures were taken.
func loadAverage() -> String {
    guard let file = fopen("/proc/loadavg", "r") else { return "?" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 128)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "?" }
    let line = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return line.split(separator: " ").first.map(String.init) ?? "?"
}

let mebibyte = 1024.0 * 1024.0

func runBenchmarks(_ options: Options) throws -> BenchmarkTable {
    // Figures by workload, printed in the workloads' order whatever order they ran in.
    var figures: [String: [Figure]] = [:]
    let millions = { (count: Int) in { (seconds: Double) in Double(count) / seconds / 1e6 } }

    // Memory first, while the heap holds nothing freed by other workloads that could hide growth.
    if options.wants("memory") {
        progress("memory: \(options.actions) and \(2 * options.actions) dispatches")
        let readings = try DispatchMemory(actions: options.actions).run()
        let first = Double(readings.afterFirst - readings.before) / mebibyte
        let second = Double(readings.afterSecond - readings.afterFirst) / mebibyte
        let label = options.actions == 1_000_000 ? "1M" : "\(options.actions)"
        let label2 = options.actions == 1_000_000 ? "2M" : "\(2 * options.actions)"
        let workload = "7 memory, undo history on"
        figures["memory"] = [
            Figure(workload: workload, name: "RSS before", samples: Samples([Double(readings.before) / mebibyte]),
                   unit: "MiB", notes: "history full (limit 100)"),
            Figure(workload: workload, name: "RSS after \(label) dispatches", samples: Samples([Double(readings.afterFirst) / mebibyte]),
                   unit: "MiB", notes: "growth \(fixed(first, decimals: 2)) MiB"),
            Figure(workload: workload, name: "RSS after \(label2) dispatches", samples: Samples([Double(readings.afterSecond) / mebibyte]),
                   unit: "MiB", notes: "growth \(fixed(second, decimals: 2)) MiB"
                       + (abs(second) < 1 ? ": flat" : ": GROWS with dispatches")),
        ]
    }

    if options.wants("swift-dispatch") {
        var rows: [Figure] = []
        for subscribers in options.subscribers {
            progress("swift-dispatch: \(subscribers) subscriber(s), \(options.runs) runs of \(options.actions) actions")
            let workload = SwiftDispatch(subscribers: subscribers, actions: options.actions)
            _ = try SwiftDispatch(subscribers: subscribers, actions: max(1, options.actions / 10)).run()
            var samples = Samples()
            for _ in 0 ..< options.runs { samples.add(try workload.run()) }
            let rate = samples.map(millions(options.actions))
            var notes = "history on (limit 100)"
            if subscribers == 10 { notes = "target ≥ 2: " + (rate.median >= 2 ? "met" : "BELOW target") }
            rows.append(Figure(workload: "1 Swift store dispatch", name: "\(subscribers) subscriber\(subscribers == 1 ? "" : "s")",
                               samples: rate, unit: "M actions/s", notes: notes))
        }
        figures["swift-dispatch"] = rows
    }

    let luaNames = ["lua-redux", "dispatch-lua", "lua-store"]
    if luaNames.contains(where: options.wants) {
        let bench = LuaBench()
        let count = options.luaActions
        var runners: [(name: String, run: (Int) throws -> Double)] = []
        if options.wants("lua-redux") { runners.append(("lua-redux", try LuaRedux(bench: bench).run)) }
        if options.wants("dispatch-lua") { runners.append(("dispatch-lua", try DispatchLua(bench: bench).run)) }
        if options.wants("lua-store") { runners.append(("lua-store", try LuaStoreDispatch(bench: bench).run)) }
        progress("\(runners.map(\.name).joined(separator: ", ")): \(options.runs) rounds of \(count) dispatches")
        for runner in runners { _ = try runner.run(max(1, count / 10)) }
        // Interleaved rounds: load from elsewhere falls on the baseline and on what it is compared with alike.
        var seconds: [String: Samples] = [:]
        for _ in 0 ..< options.runs {
            for runner in runners { seconds[runner.name, default: Samples()].add(try runner.run(count)) }
        }
        let rates = seconds.mapValues { $0.map(millions(count)) }
        let baseline = rates["lua-redux"]
        func ratio(_ name: String) -> String {
            guard let rate = rates[name], let baseline else { return "run lua-redux too for the ratio to 3" }
            return ratioNote(rate.ratio(to: baseline), label: name == "dispatch-lua" ? "2 ÷ 3" : "4 ÷ 3")
        }
        if let rate = rates["dispatch-lua"] {
            figures["dispatch-lua"] = [Figure(workload: "2 flux.dispatch from Lua", name: "Swift store, Lua subscriber",
                                              samples: rate, unit: "M actions/s", notes: ratio("dispatch-lua"))]
        }
        if let rate = rates["lua-redux"] {
            figures["lua-redux"] = [Figure(workload: "3 pure-Lua Redux store", name: "same VM, 1 listener",
                                           samples: rate, unit: "M actions/s", notes: "baseline of 2 and 4")]
        }
        if let rate = rates["lua-store"] {
            figures["lua-store"] = [Figure(workload: "4 flux.store (Lua store)", name: "Lua handler, Lua subscriber",
                                           samples: rate, unit: "M actions/s", notes: ratio("lua-store"))]
        }
    }

    if options.wants("bridge") {
        progress("bridge: \(options.runs) runs")
        let bridging = Bridging(repeats: 50)
        _ = try bridging.run()
        var encode = Samples(), decode = Samples(), roundTrip = Samples()
        for _ in 0 ..< options.runs {
            let times = try bridging.run()
            encode.add(times.encode * 1000)
            decode.add(times.decode * 1000)
            roundTrip.add(times.roundTrip * 1000)
        }
        let workload = "5 Swift ⇄ Lua bridging"
        figures["bridge"] = [
            Figure(workload: workload, name: "1,000 items, round trip", samples: roundTrip, unit: "ms",
                   notes: "5 fields each (Int, String, Double, Bool, String?)"),
            Figure(workload: workload, name: "LuaEncoder push", samples: encode, unit: "ms"),
            Figure(workload: workload, name: "LuaDecoder decode", samples: decode, unit: "ms"),
        ]
    }

    if options.wants("table") {
        progress("table: \(options.runs) runs")
        let table = TableWorkload(repeats: 5)
        _ = try table.run()
        var diffs = Samples(), renders = Samples(), patches = Samples()
        for _ in 0 ..< options.runs {
            let times = try table.run()
            diffs.add(times.diff * 1000)
            renders.add(times.render * 1000)
            patches.add(times.patch * 1000)
        }
        let workload = "6 FluxTable, 10×1,000 rows"
        figures["table"] = [
            Figure(workload: workload, name: "diff, 1% rows changed", samples: diffs, unit: "ms", notes: "100 updates"),
            Figure(workload: workload, name: "render, whole table", samples: renders, unit: "ms", notes: "80 columns, Unicode, no colour"),
            Figure(workload: workload, name: "patch render", samples: patches, unit: "ms", notes: "100 lines"),
        ]
    }

    if options.wants("shell") {
        let workload = "7 fluxsh"
        if let path = ShellStartup.locate() {
            progress("shell: \(options.shellRuns) runs of \(path)")
            let shell = ShellStartup(path: path)
            _ = try shell.run() // the first run pays for reading the binary from disk
            var times = Samples(), peaks = Samples()
            var statuses: Set<Int32> = []
            for _ in 0 ..< options.shellRuns {
                let run = try shell.run()
                times.add(run.seconds * 1000)
                peaks.add(Double(run.peakBytes) / mebibyte)
                statuses.insert(run.status)
            }
            let exit = statuses == [0] ? "" : "; exit status \(statuses.sorted().map { String($0 >> 8) }.joined(separator: ", "))"
            figures["shell"] = [
                Figure(workload: workload, name: "start to first prompt", samples: times, unit: "ms",
                       notes: "whole run with `:quit` piped in" + exit),
                Figure(workload: workload, name: "peak memory", samples: peaks, unit: "MiB", notes: "ru_maxrss of the child"),
            ]
        } else {
            figures["shell"] = [Figure(workload: workload, name: "start to first prompt", samples: Samples(), unit: "ms",
                                       notes: "fluxsh not built (build the fluxsh product next to flux-bench)")]
        }
    }

    return BenchmarkTable(figures: options.workloads.flatMap { name in
        Options.workloads.map(\.0).contains(name) ? figures[name] ?? [] : []
    }.sorted { $0.workload < $1.workload })
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let loadBefore = loadAverage()
    let table = try runBenchmarks(options)
    print("flux-bench: medians of \(options.runs) runs (fluxsh: \(options.shellRuns)); load average \(loadBefore) before, \(loadAverage()) after")
    print(table.render(), terminator: "")
} catch {
    printError("flux-bench: \(error)")
    exit(1)
}
