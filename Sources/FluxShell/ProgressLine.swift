import Foundation

/// A one-line progress report for work that may take seconds: shown on the terminal only, once the work
/// has run for half a second, and erased when it ends.
///
/// It goes to standard error when that is a terminal, so nothing of it lands in a pipe or a file.
///
/// ```swift
/// let progress = ProgressLine(label: "replaying")
/// for (i, entry) in entries.enumerated() { progress.update(done: i, total: entries.count); apply(entry) }
/// progress.finish()
/// ```
final class ProgressLine {
    /// How long work runs before the line appears, in seconds.
    static let delay = 0.5

    private let label: String
    private let start = Date()
    private let enabled: Bool
    private var lastDrawn: Date?

    /// A report for work called `label`; nothing is drawn unless standard error is a terminal.
    init(label: String, terminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.enabled = terminal
    }

    /// Redraws the line (at most ten times a second) once the work is older than ``delay``.
    func update(done: Int, total: Int) {
        guard enabled else { return }
        let now = Date()
        let elapsed = now.timeIntervalSince(start)
        guard elapsed >= Self.delay, lastDrawn.map({ now.timeIntervalSince($0) >= 0.1 }) ?? true else { return }
        lastDrawn = now
        draw(Self.text(label: label, done: done, total: total, elapsed: elapsed))
    }

    /// Erases the line, if it was drawn.
    func finish() {
        guard lastDrawn != nil else { return }
        draw("")
        lastDrawn = nil
    }

    /// "replaying 1200/5000 entries, 2400/s, 2 s left".
    static func text(label: String, done: Int, total: Int, elapsed: TimeInterval) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var text = "\(label) \(done)/\(total), \(Int(rate.rounded()))/s"
        if rate > 0 { text += ", \(Int((Double(total - done) / rate).rounded(.up))) s left" }
        return text
    }

    private func draw(_ text: String) {
        // Carriage return, the text, then erase to the end of the line.
        var line = "\r" + text + "\u{1B}[K"
        line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }
}
