import FluxEffects

extension Shell {
    /// `:effects`: one line per live effect, oldest first: its number, owner, kind, what it runs, its age
    /// and when it fires next.
    func listEffects() {
        let effects = host.effects
        let live = effects.live
        guard !live.isEmpty else { return print("no effects") }
        let now = effects.now
        let rows: [[String]] = [["#", "owner", "kind", "what", "age", "next"]] + live.map { effect in
            [String(effect.id), effect.owner.description, effect.kind.rawValue,
             effect.detail + (effect.pid.map { " (pid \($0))" } ?? ""),
             Self.duration(now - effect.started),
             effect.due.map { "in " + Self.duration(max(0, $0 - now)) } ?? "—"]
        }
        let widths = (0 ..< 6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        print(rows.map { row in
            row.enumerated().map { column, text in
                column == 5 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n"))
    }

    /// `1234` ms as `1.2 s`, `90000` as `1 min 30 s`.
    static func duration(_ milliseconds: Double) -> String {
        if milliseconds < 1000 { return "\(Int(milliseconds)) ms" }
        if milliseconds < 60_000 { return String(format: "%.1f s", milliseconds / 1000) }
        let seconds = Int(milliseconds / 1000)
        if seconds < 3600 { return "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }

    /// After an effect's callback at the prompt: what it dispatched is saved with the session.
    func acknowledgeEffect() {
        guard let session, host.dispatcher.isSettled, session.save() else { return }
        session.trimJournal()
    }
}
