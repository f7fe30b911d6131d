import Foundation

/// Whether process `pid` still runs: it exists and is not a zombie. A child killed with its shell is
/// reparented to init, which reaps it when it gets to it; until then `kill(pid, 0)` still finds it,
/// though it runs no more.
func isRunning(_ pid: Int32) -> Bool {
    guard pid > 0, kill(pid, 0) == 0 else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.range(of: ") ", options: .backwards) else { return true }
    let state = stat[close.upperBound...].first
    return state != "Z" && state != "X"
}
