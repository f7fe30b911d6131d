/// One action that has committed and can no longer be rolled back: what the journal, `:record`, the
/// devtools and `flux.on` listeners read.
public struct SettledCommit {
    /// Where an action came from.
    public enum Origin: String, Sendable {
        /// Dispatched by a person or a script.
        case direct
        /// Queued by a subscriber while the action before it was published.
        case followUp
        /// Dispatched by an effect's callback: a timer, a process, a watch or a listener.
        case effect
        /// Dispatched by a replay (`:replay`, `:goto`, a session's restore): no listener runs for it.
        case replay
    }

    /// The action.
    public let action: any Action
    /// The undo group it ran in, if any.
    public let group: (id: Int, label: String)?
    /// The stores it changed, by name.
    public let changed: [String]
    /// Where it came from.
    public let origin: Origin
}

/// The stream of a dispatcher's settled commits, in the order they were dispatched.
///
/// An action outside any group settles once every store kept its change. The actions of a group, or
/// of ``Dispatcher/allOrNothing(_:)`` work, are held until the outermost one ends, then told one by one;
/// when it is rolled back they are dropped, never told. A refused or failed action is never told.
///
/// ```swift
/// let stream = SettledCommits.of(dispatcher)
/// let id = stream.subscribe { commit in print(commit.action.name, commit.changed, commit.origin) }
/// stream.unsubscribe(id)
/// ```
///
/// Subscribers are called while the dispatcher publishes: an action one dispatches then is queued as a
/// follow-up. To act on a commit outside the dispatch (as `flux.on` listeners do), queue the work and
/// run it once ``Dispatcher/isIdle``.
public final class SettledCommits: Middleware {
    private var subscribers: [(id: Int, body: (SettledCommit) -> Void, skipsReplays: Bool)] = []
    private var nextID = 1
    /// Commits not settled yet: of the group open now, or of all-or-nothing work still running.
    private var held = SettlingQueue<SettledCommit>()

    private init() {}

    /// The stream of `dispatcher`, made (and added to its middleware) on first use.
    public static func of(_ dispatcher: Dispatcher) -> SettledCommits {
        if let stream = dispatcher.middleware.lazy.compactMap({ $0 as? SettledCommits }).first { return stream }
        let stream = SettledCommits()
        dispatcher.middleware.append(stream)
        return stream
    }

    /// Calls `body` with every commit that settles from now on; returns the number to unsubscribe with.
    /// With `skippingReplays`, it hears no commit of a replay (``SettledCommit/Origin/replay``): while no
    /// subscriber wants them, a replay's commits are not even held until it settles, so a replay of a
    /// long log keeps none of its actions here.
    @discardableResult
    public func subscribe(skippingReplays: Bool = false, _ body: @escaping (SettledCommit) -> Void) -> Int {
        let id = nextID
        nextID += 1
        subscribers.append((id, body, skippingReplays))
        return id
    }

    /// Stops telling the subscriber `id`.
    public func unsubscribe(_ id: Int) {
        subscribers.removeAll { $0.id == id }
    }

    public func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        guard !subscribers.isEmpty else { return }
        let origin: SettledCommit.Origin = dispatcher.dropsFollowUps ? .replay
            : dispatcher.isEffect ? .effect : dispatcher.isFollowUp ? .followUp : .direct
        if origin == .replay, subscribers.allSatisfy(\.skipsReplays) { return }
        let commit = SettledCommit(action: action, group: dispatcher.currentGroup, changed: changed, origin: origin)
        guard !held.holds(commit, inGroup: commit.group != nil) else { return }
        for earlier in held.takeHeld() { tell(earlier) }
        tell(commit)
    }

    public func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher) {
        held.rollBack(actions)
    }

    public func didEndGroup(_ label: String, in dispatcher: Dispatcher) {
        for commit in held.endGroup() { tell(commit) }
    }

    public func willRunAllOrNothing(in dispatcher: Dispatcher) {
        held.beginAllOrNothing()
    }

    public func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        for commit in held.endAllOrNothing(kept: kept, inGroup: dispatcher.currentGroup != nil) { tell(commit) }
    }

    private func tell(_ commit: SettledCommit) {
        for subscriber in subscribers where !(subscriber.skipsReplays && commit.origin == .replay) { subscriber.body(commit) }
    }
}
