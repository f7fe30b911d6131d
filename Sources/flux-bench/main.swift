import Glibc

// flux-bench: fixed workloads, timed in a release build, printed as one table of medians.
// `flux-bench` runs them all; `flux-bench dispatch-lua` runs one alone (for callgrind).

/// Progress goes to standard error, so standard output is the table alone.
func progress(_ message: String) {
    printError("flux-bench: \(message)")
}

/// Writes a line to standard error (file descriptor 2: the `stderr` global is not concurrency-safe).
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// Runs the chosen workloads and returns their figures in the workloads' order.
func runBenchmarks(_ options: Options) throws -> BenchmarkTable {
    var figures: [String: [Figure]] = [:]
    // Memory first, while the heap holds nothing freed by other workloads that could hide growth.
    if options.wants("memory") { figures["memory"] = try DispatchMemory.figures(options) }
    if options.wants("swift-dispatch") { figures["swift-dispatch"] = try SwiftDispatch.figures(options) }
    // 2, 3 and 4 run together, in interleaved rounds, so the ratios compare like with like.
    figures.merge(try LuaBench.figures(options)) { old, _ in old }
    if options.wants("bridge") { figures["bridge"] = try Bridging.figures(options) }
    if options.wants("table") { figures["table"] = try TableWorkload.figures(options) }
    if options.wants("shell") { figures["shell"] = try ShellStartup.figures(options) }
    if options.wants("subscriptions") { figures["subscriptions"] = try Subscriptions.figures(options) }
    if options.wants("session") { figures["session"] = try SessionStartup.figures(options) }
    if options.wants("goto") { figures["goto"] = try SessionTravel.figures(options) }
    if options.wants("large-state") { figures["large-state"] = try SessionLargeState.figures(options) }
    if options.wants("live-view") { figures["live-view"] = try LiveViewWorkload.figures(options) }
    if options.wants("effects") { figures["effects"] = try EffectsBench.figures(options) }
    if options.wants("session-cost") { figures["session-cost"] = try SessionDispatchCost.figures(options) }
    if options.wants("stores") { figures["stores"] = try StoreDefinition.figures(options) }
    if options.wants("view-reuse") { figures["view-reuse"] = try ViewReuse.figures(options) }
    return BenchmarkTable(figures: Options.workloads.flatMap { figures[$0.name] ?? [] })
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let loadBefore = Measure.loadAverage()
    let table = try runBenchmarks(options)
    let runs = { (count: Int) in count == 1 ? "1 run" : "\(count) runs" }
    print("flux-bench: medians of \(runs(options.runs)) (fluxsh: \(runs(options.shellRuns))); "
        + "load average \(loadBefore) before, \(Measure.loadAverage()) after")
    print(table.render(), terminator: "")
} catch {
    printError("flux-bench: \(error)")
    exit(1)
}
