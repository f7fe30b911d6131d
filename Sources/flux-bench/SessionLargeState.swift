import Flux
import FluxLua
import FluxSession
import Foundation

/// Workload 12: a session keeping a Lua store of about 2 MB, where each line changes one field: what a
/// line's save costs in time and in bytes written (the write-ahead log's growth), with the undo history
/// empty and full, and how long a restart takes with the history full.
struct SessionLargeState {
    /// The store: 20,000 items of about 100 bytes each, and a counter.
    static let define = #"""
    local items = {}
    for i = 1, 20000 do items[i] = {id = i, name = "item " .. i, text = string.rep("x", 60), done = false} end
    flux.store{name = "large", state = {count = 0, items = items}, on = {
      ["large.touch"] = function(s, a) s.count = s.count + 1; s.items[a.i].done = not s.items[a.i].done; return s end,
    }}
    """#

    /// A host with the store, its dispatcher kept in the session `name` in `directory`.
    static func open(in directory: URL, history: Int) throws -> (FluxHost, Session) {
        let dispatcher = Dispatcher()
        dispatcher.history.limit = history
        let host = FluxHost(dispatcher: dispatcher)
        host.report = { message in printError("flux-bench: \(message)") }
        let session = try Session.open(name: "large", directory: directory, dispatcher: dispatcher) { message in
            printError("flux-bench: \(message)")
        }
        try host.vm.stack.load(define, chunkName: "large")
        try host.vm.stack.pcall(arguments: 0, results: 0)
        session.restore()
        session.attach()
        return (host, session)
    }

    /// One line: one action changing one field, then the save that makes it durable.
    static func line(_ host: FluxHost, _ session: Session, _ index: Int) throws {
        try host.dispatcher.dispatch(LuaAction(name: "large.touch", payload: .table([.string("i"): .integer(index % 20_000 + 1)])))
        guard session.save() else { throw BenchmarkFailure("large state: a save failed") }
    }

    /// The bytes a line writes: what the process hands to `write` meanwhile (`wchar` of /proc/self/io),
    /// the database's pages and its write-ahead log's frames.
    static func written(by body: () throws -> Void) rethrows -> Int {
        let before = writtenSoFar()
        try body()
        return writtenSoFar() - before
    }

    /// The process's CPU time so far, every thread's (the database's queue too), in milliseconds.
    static func cpuMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }

    private static func writtenSoFar() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }) else { return 0 }
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
    }

    static func figures(_ options: Options) throws -> [Figure] {
        let workload = "12 session, 2 MB Lua store"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flux-bench-large-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        progress("session: a 2 MB Lua store, lines changing one field, the undo history empty then full (100 steps)")
        var emptyTime = Samples(), emptyBytes = Samples(), fullTime = Samples(), fullBytes = Samples(), restart = Samples(),
            firstUndo = Samples(), undoBytes = Samples(), emptyCPU = Samples(), fullCPU = Samples(), undoCPU = Samples()
        var stateBytes = 0
        // Every saved step should come back (each is decoded only when an undo reaches it): how many did is
        // said in the row rather than failing the run.
        var restoredSteps = 0
        for run in 0 ..< options.runs {
            try? FileManager.default.removeItem(at: folder)
            do {
                // A new session: the undo history holds the few steps of these lines.
                let (host, session) = try open(in: folder.appendingPathComponent("empty"), history: 100)
                try line(host, session, 0)
                for index in 1 ... 5 {
                    var bytes = 0
                    let cpu = cpuMilliseconds()
                    emptyTime.add(try Measure.seconds { bytes = try written { try line(host, session, index) } } * 1000)
                    emptyCPU.add(cpuMilliseconds() - cpu)
                    emptyBytes.add(Double(bytes) / 1000)
                }
                if run == 0 {
                    stateBytes = try host.dispatcher.store(named: "large").flatMap { $0 as? any PersistentState }
                        .map { try $0.encodeState($0.snapshot()).utf8.count } ?? 0
                }
                session.close()
            }
            let directory = folder.appendingPathComponent("full")
            do {
                // The undo history full: each line adds a step and drops the oldest.
                let (host, session) = try open(in: directory, history: 100)
                for index in 0 ..< 105 { try line(host, session, index) }
                for index in 105 ..< 110 {
                    var bytes = 0
                    let cpu = cpuMilliseconds()
                    fullTime.add(try Measure.seconds { bytes = try written { try line(host, session, index) } } * 1000)
                    fullCPU.add(cpuMilliseconds() - cpu)
                    fullBytes.add(Double(bytes) / 1000)
                }
                session.close()
            }
            var steps = 0
            restart.add(try Measure.seconds {
                let (host, session) = try open(in: directory, history: 100)
                steps = host.dispatcher.history.undoLabels.count
                session.close()
            } * 1000)
            restoredSteps = steps
            // The first undo after the restart: it decodes the step's state, left as saved until then.
            let (host, session) = try open(in: directory, history: 100)
            // With its save: the state put back, the redo step (the state restored at the start) and the
            // journal's snapshot, each the pieces it was read from.
            var bytes = 0
            let cpu = cpuMilliseconds()
            firstUndo.add(try Measure.seconds {
                bytes = try written {
                    guard try host.dispatcher.undo() else { throw BenchmarkFailure("large state: nothing to undo after a restart") }
                    guard session.save() else { throw BenchmarkFailure("large state: a save failed") }
                }
            } * 1000)
            undoCPU.add(cpuMilliseconds() - cpu)
            undoBytes.add(Double(bytes) / 1000)
            session.close()
        }
        let size = "state \(stateBytes / 1000) kB"
        return [
            Figure(workload: workload, name: "line, undo history empty", samples: emptyTime, unit: "ms", notes: "\(size); target < 20"),
            Figure(workload: workload, name: "its CPU time", samples: emptyCPU, unit: "ms", notes: "every thread's: the figure a loaded machine moves least"),
            Figure(workload: workload, name: "its writes", samples: emptyBytes, unit: "kB", notes: "database and log growth; target < 100"),
            Figure(workload: workload, name: "line, undo history full", samples: fullTime, unit: "ms", notes: "100 steps; target < 20"),
            Figure(workload: workload, name: "its CPU time", samples: fullCPU, unit: "ms", notes: ""),
            Figure(workload: workload, name: "its writes", samples: fullBytes, unit: "kB", notes: "target < 100"),
            Figure(workload: workload, name: "restart, undo history full", samples: restart, unit: "ms",
                   notes: "store defined, state and \(restoredSteps) of 100 steps restored; target < 1000"),
            Figure(workload: workload, name: "first undo after it, saved", samples: firstUndo, unit: "ms",
                   notes: "decodes the step's state, saved in pieces; target < 200"),
            Figure(workload: workload, name: "its CPU time", samples: undoCPU, unit: "ms", notes: ""),
            Figure(workload: workload, name: "its writes", samples: undoBytes, unit: "kB",
                   notes: "state, redo step and snapshot: the pieces they were read from"),
        ]
    }
}
