extension ActionLogEntry {
    /// The log entry of a settled commit: what the journal and `:record` write of it.
    public init(_ commit: SettledCommit) {
        switch commit.event {
        case let .action(action):
            self.init(action: action, time: commit.time, group: commit.group, isFollowUp: commit.origin == .followUp)
            isEffect = commit.origin == .effect
        case let .step(step, _):
            self.init(step: step, time: commit.time)
        case let .states(label, states):
            self.init(step: .undo, time: commit.time)
            event = .states(label: label, states)
        }
    }
}
