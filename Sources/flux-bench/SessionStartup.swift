import Flux
import FluxFeatures
import FluxSession
import Foundation
import Glibc

/// Workload 8: `fluxsh --session` starting in a session whose journal holds 100,000 actions (as many
/// rows: no two in a row are the same), with a full undo history, compared with a start in no session.
struct SessionStartup {
    static let actions = 100_000

    /// Fills the session `big` in `directory` the way fluxsh would: the shipped features, then
    /// alternating tic-tac-toe moves and resets.
    static func prepare(in directory: URL) throws {
        let (dispatcher, session) = try open("big", in: directory)
        try dispatchActions(into: dispatcher)
        session.close()
        guard try session.summary().journalLength == actions else {
            throw BenchmarkFailure("session: the journal does not hold \(actions) actions")
        }
    }

    /// The shipped features in a dispatcher kept in the session `name`, opened as fluxsh opens it.
    static func open(_ name: String, in directory: URL, snapshotInterval: Int? = nil) throws -> (Dispatcher, Session) {
        let dispatcher = Dispatcher()
        _ = FluxFeatures.install(on: dispatcher)
        let session = try Session.open(name: name, directory: directory, dispatcher: dispatcher) { message in
            printError("flux-bench: \(message)")
        }
        if let snapshotInterval { session.snapshotInterval = snapshotInterval }
        session.restore()
        session.attach()
        return (dispatcher, session)
    }

    /// The journal's actions: alternating tic-tac-toe moves and resets, no two in a row the same.
    static func dispatchActions(into dispatcher: Dispatcher) throws {
        for index in 0 ..< actions / 2 {
            try dispatcher.dispatch(TicTacToeActions.PlaceToken(index: index % 9))
            try dispatcher.dispatch(TicTacToeActions.Reset())
        }
    }

    static func figures(_ options: Options) throws -> [Figure] {
        let workload = "8 fluxsh in a session"
        guard let path = ShellStartup.locate() else {
            return [Figure(workload: workload, name: "start", samples: Samples(), unit: "ms", notes: "fluxsh not built")]
        }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("flux-bench-state-\(getpid())")
        defer { try? FileManager.default.removeItem(at: state) }
        progress("session: a journal of \(actions) actions, then \(options.shellRuns) runs of each start")
        try prepare(in: state.appendingPathComponent("fluxsh/sessions"))
        setenv("XDG_STATE_HOME", state.path, 1)
        let shell = ShellStartup(path: path)
        _ = try shell.run(arguments: ["--session", "big"]) // untimed: reads the binary and the database from disk
        var kept = Samples(), none = Samples()
        for _ in 0 ..< options.shellRuns {
            kept.add(try shell.run(arguments: ["--session", "big"]).seconds * 1000)
            none.add(try shell.run().seconds * 1000)
        }
        return [
            Figure(workload: workload, name: "start, 100,000-action journal", samples: kept, unit: "ms",
                   notes: "whole run, `:stores` and `:quit` piped in; states and undo history restored"),
            Figure(workload: workload, name: "the same in no session", samples: none, unit: "ms", notes: "workload 7's run"),
            Figure(workload: workload, name: "trim a tenth of the journal past its limit", samples: try trims(options, in: state),
                   unit: "ms", notes: "after a line: 10,000 of 100,000 entries (rows) dropped, one transaction"),
        ]
    }

    /// Times ``Session/trimJournal()`` dropping a tenth of the prepared journal, on a copy of it each run.
    private static func trims(_ options: Options, in state: URL) throws -> Samples {
        let sessions = state.appendingPathComponent("fluxsh/sessions")
        let copies = state.appendingPathComponent("trims")
        var samples = Samples()
        for _ in 0 ..< options.runs {
            try? FileManager.default.removeItem(at: copies)
            try FileManager.default.copyItem(at: sessions, to: copies)
            let (_, session) = try open("big", in: copies)
            session.journalLimit = actions * 9 / 10
            var dropped = 0
            samples.add(Measure.seconds { dropped = session.trimJournal() } * 1000)
            guard dropped == actions / 10 else { throw BenchmarkFailure("session: the trim dropped \(dropped) entries") }
        }
        return samples
    }
}
