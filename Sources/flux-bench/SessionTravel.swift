import Flux
import FluxFeatures
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
        let dispatcher = Dispatcher()
        _ = FluxFeatures.install(on: dispatcher)
        let session = try Session.open(name: "big", directory: directory, dispatcher: dispatcher) { message in
            printError("flux-bench: \(message)")
        }
        session.restore()
        session.attach()
        let far = SessionStartup.actions - 1, interval = session.snapshotInterval
        var end = Samples(), start = Samples()
        for _ in 0 ..< options.runs {
            end.add(try Measure.seconds { try session.goTo(entry: far) } * 1000)
            try dispatcher.undo()
            start.add(try Measure.seconds { try session.goTo(entry: interval - 1) } * 1000)
            try dispatcher.undo()
        }
        session.close()

        // The same 100,000 actions dispatched in a session with and without snapshots.
        var with = Samples(), without = Samples()
        for run in 0 ..< options.runs {
            for snapshots in [true, false] {
                let dispatcher = Dispatcher()
                _ = FluxFeatures.install(on: dispatcher)
                let session = try Session.open(name: "s\(run)\(snapshots)", directory: directory, dispatcher: dispatcher)
                session.snapshotInterval = snapshots ? interval : .max
                session.restore()
                session.attach()
                let seconds = try Measure.seconds {
                    for index in 0 ..< SessionStartup.actions / 2 {
                        try dispatcher.dispatch(TicTacToeActions.PlaceToken(index: index % 9))
                        try dispatcher.dispatch(TicTacToeActions.Reset())
                    }
                    session.save()
                }
                let nanoseconds = seconds * 1e9 / Double(SessionStartup.actions)
                if snapshots { with.add(nanoseconds) } else { without.add(nanoseconds) }
                session.close()
            }
        }
        let perAction = Samples(zip(with.values, without.values).map { $0 - $1 })
        return [
            Figure(workload: workload, name: "to entry \(far) of \(SessionStartup.actions)", samples: end, unit: "ms",
                   notes: "\(interval - 1) entries replayed from the snapshot before it; one undo step"),
            Figure(workload: workload, name: "to entry \(interval - 1)", samples: start, unit: "ms", notes: "the same, near the start"),
            Figure(workload: workload, name: "snapshots, per action", samples: perAction, unit: "ns",
                   notes: "every store encoded every \(interval) entries: in a session with ÷ without"),
        ]
    }
}
