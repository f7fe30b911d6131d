import Flux
import FluxSession
import Foundation
import Glibc

/// Workload 11: `:goto` in a session whose journal holds 100,000 actions (workload 8's), to its far
/// end — the entry before a snapshot, so the most entries to replay — and near its start; and what
/// taking snapshots costs an action.
struct SessionTravel {
    static func figures(_ options: Options) throws -> [Figure] {
        let workload = "11 :goto in a session"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flux-bench-goto-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        progress("goto: a journal of \(SessionStartup.actions) actions, then \(options.runs) runs of each travel")
        try SessionStartup.prepare(in: directory)
        let (dispatcher, session) = try SessionStartup.open("big", in: directory)
        let far = SessionStartup.actions - 1, interval = session.snapshotInterval
        var end = Samples(), start = Samples()
        for _ in 0 ..< options.runs {
            end.add(try Measure.seconds { try session.goTo(entry: far) } * 1000)
            try dispatcher.undo()
            start.add(try Measure.seconds { try session.goTo(entry: interval - 1) } * 1000)
            try dispatcher.undo()
        }
        session.close()

        // The same 100,000 actions in a session taking a snapshot every 10 entries, and taking none: the
        // difference is the time of 10,000 snapshots.
        var snapshot = Samples()
        for run in 0 ..< options.runs {
            var seconds: [Double] = []
            for often in [true, false] {
                let (dispatcher, session) = try SessionStartup.open("s\(run)\(often)", in: directory,
                                                                    snapshotInterval: often ? 10 : .max)
                seconds.append(try Measure.seconds {
                    try SessionStartup.dispatchActions(into: dispatcher)
                    session.save()
                })
                session.close()
            }
            snapshot.add((seconds[0] - seconds[1]) * 1e6 / Double(SessionStartup.actions / 10))
        }
        return [
            Figure(workload: workload, name: "to entry \(far) of \(SessionStartup.actions)", samples: end, unit: "ms",
                   notes: "\(interval - 1) entries replayed from the snapshot before it; one undo step"),
            Figure(workload: workload, name: "to entry \(interval - 1)", samples: start, unit: "ms", notes: "the same, near the start"),
            Figure(workload: workload, name: "one snapshot", samples: snapshot, unit: "µs",
                   notes: "every store encoded; ÷ \(interval) per action at the default interval"),
        ]
    }
}
