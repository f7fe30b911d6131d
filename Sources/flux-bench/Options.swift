import Glibc

/// The command line: which workloads, and how many runs of each.
struct Options {
    var runs = 5
    var shellRuns = 10
    var actions = 1_000_000
    var luaActions = 200_000
    var subscribers = [1, 10]
    /// Whether each dispatch workload runs once unmeasured first; off for counting instructions, where
    /// every dispatch a run makes must be one of the `--actions` counted.
    var warmUp = true
    /// Whether workload 2 also runs in a session; off for counting instructions, since a session saves
    /// on a timer and a slowed run saves more often.
    var inSession = true
    /// `session-cost` runs only the VM without a session (false) or only the one in a session (true), one
    /// line and no replay: for counting each half's instructions apart.
    var sessionHalf: Bool?
    /// The workloads named on the command line, or all of them.
    var chosen: [String] = []

    /// Every workload by the name that runs it alone, in the order of the table.
    static let workloads: [(name: String, summary: String)] = [
        ("swift-dispatch", "1: Swift store, 1M actions, 1 and 10 subscribers"),
        ("dispatch-lua", "2: flux.dispatch from Lua into a Swift store, one Lua subscriber (also in a session)"),
        ("lua-redux", "3: pure-Lua Redux-style store in the same VM (baseline of 2 and 4)"),
        ("lua-store", "4: store defined with flux.store, one Lua subscriber"),
        ("bridge", "5: 1,000-item Swift state to a Lua table and back"),
        ("table", "6: FluxTable diff, render and patch render of 10,000 rows, 1% changed"),
        ("shell", "7: fluxsh start to first prompt, and its peak memory"),
        ("session", "8: fluxsh start in a session whose journal holds 100,000 actions"),
        ("memory", "9: resident memory after 1M and 2M dispatches with undo history on"),
        ("subscriptions", "10: 100,000 subscriptions from Lua made and cancelled, oldest and newest first"),
        ("goto", "11: :goto to the far end of a session's 100,000-action journal; snapshots' cost per action"),
        ("large-state", "12: a session with a 2 MB Lua store: a line changing one field (time, bytes written), a restart"),
        ("live-view", "13: a live view's redraw of 10,000 rows after 1 row, 1% and every row changed: time and bytes"),
        ("effects", "14: 1,000 timer dispatches a second vs a plain loop, an idle shell's CPU, process lines into a store"),
        ("session-cost", "15: a Lua dispatch with a payload in a session ÷ without; :replay of 1M lines, peak memory"),
        ("stores", "16: 10,000 Lua stores defined (an action each, one shared); reload of a plugin of 1,000 stores"),
        ("view-reuse", "17: a watched 1M-cell Lua view after one cell changed: built in full vs lazy sections"),
    ]

    /// What `--help` and a wrong argument print.
    static let usage = """
    usage: flux-bench [--runs N] [--shell-runs N] [--actions N] [--lua-actions N] [--subscribers N] [--no-warm-up]
                      [--no-session] [--session-half without|with] [workload…]

    Runs every workload, or those named, and prints one table of medians over the runs.
      --runs N         runs per figure (default 5)
      --shell-runs N   runs of fluxsh (default 10)
      --actions N      Swift dispatches per run (default 1000000; memory reads after N and 2N)
      --lua-actions N  dispatches per run of the Lua workloads (default 200000)
      --subscribers N  only this many subscribers in swift-dispatch (default: 1, then 10)
      --no-warm-up     no unmeasured first run of the dispatch workloads (for counting instructions)
      --no-session     workload 2 not also in a session (for counting instructions)
      --session-half without|with
                       session-cost: only the VM without (or with) a session, one line of --lua-actions
                       dispatches, no replay (for counting instructions)

    workloads:
    \(workloads.map { "  \($0.name.padding(to: 16))\($0.summary)" }.joined(separator: "\n"))
    """

    /// Options from the command line's arguments (without the program name).
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
            case "--no-warm-up": warmUp = false
            case "--no-session": inSession = false
            case "--session-half":
                switch rest.popFirst() {
                case "without": sessionHalf = false
                case "with": sessionHalf = true
                default: throw BenchmarkFailure("--session-half needs 'without' or 'with'\n\n\(Self.usage)")
                }
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            case let name where Self.workloads.contains { $0.name == name }:
                if !chosen.contains(name) { chosen.append(name) }
            default:
                throw BenchmarkFailure("unknown argument '\(argument)'\n\n\(Self.usage)")
            }
        }
        if chosen.isEmpty { chosen = Self.workloads.map(\.name) }
    }

    /// Whether the workload `name` is to run.
    func wants(_ name: String) -> Bool { chosen.contains(name) }

    /// The workloads' figure in millions per second from the seconds `count` operations took.
    static func millionsPerSecond(_ count: Int) -> (Double) -> Double {
        { seconds in Double(count) / seconds / 1e6 }
    }
}

/// A mebibyte, for memory figures.
let mebibyte = 1024.0 * 1024.0

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
