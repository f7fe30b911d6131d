import Foundation

/// One change that has committed and can no longer be rolled back — an action, an undo or redo step, or
/// stores put to given states — as the journal, `:record`, the devtools and `flux.on` listeners read it.
public struct SettledCommit {
    /// Where an action came from.
    public enum Origin: String, Sendable {
        /// Dispatched by a person or a script.
        case direct
        /// Queued by a subscriber while the action before it was published.
        case followUp
        /// Dispatched by an effect's callback: a timer, a process, a watch or a listener.
        case effect
    }

    /// What committed.
    public enum Event {
        /// An action, handled by every store and kept.
        case action(any Action)
        /// An undo or redo step, with the label of the step it took.
        case step(HistoryStep, label: String)
        /// Stores put to the states given, as one undo step with its label (``Dispatcher/setStates(_:label:)``:
        /// `:goto`, a session's restore, a state replaced from outside). The states are encoded once, here,
        /// for every reader that writes them.
        case states(label: String, [EncodedState])
    }

    /// What committed.
    public let event: Event
    /// The undo group it ran in, if any (an action only: a step or a setting of states runs outside groups).
    public let group: (id: Int, label: String)?
    /// The stores it changed, by name (an action's; empty for a step or a setting of states).
    public let changed: [String]
    /// Where it came from (a replay keeps the origin the log recorded).
    public let origin: Origin
    /// Whether a replay committed it (`:replay`, `:goto`, a session's restore): no listener runs for it,
    /// no outbox sends it.
    public let isReplay: Bool
    /// Seconds since 1970 when it committed (the stream's ``SettledCommits/clock``): a group's actions
    /// keep the times they ran at, not the time the group ended.
    public let time: Double

    /// The action, nil for a step or a setting of states.
    public var action: (any Action)? {
        if case let .action(action) = event { return action }
        return nil
    }
}

/// The stream of a dispatcher's settled commits, in the order they committed.
///
/// An action outside any group settles once every store kept its change. The actions of a group, or
/// of ``Dispatcher/allOrNothing(_:)`` work (a replay), are held until the outermost one ends, then told
/// one by one; when it is rolled back they are dropped, never told. A refused or failed action is never
/// told. Undo and redo steps and settings of states are told in their places among the actions.
///
/// ```swift
/// let stream = SettledCommits.of(dispatcher)
/// let id = stream.subscribe { commit in print(commit.action?.name ?? "step", commit.changed, commit.origin) }
/// stream.unsubscribe(id)
/// ```
///
/// Subscribers are called while the dispatcher publishes: an action one dispatches then is queued as a
/// follow-up. To act on a commit outside the dispatch (as `flux.on` listeners do), queue the work and
/// run it once ``Dispatcher/isIdle``. Free while nobody subscribes: a commit is built only for a reader.
public final class SettledCommits: Middleware {
    private struct Subscriber {
        let id: Int
        /// Called as the commit happens, with the stores as it left them; its result goes to `body`.
        let capture: ((SettledCommit) -> Any)?
        let body: (SettledCommit, Any?) -> Void
        let skipsReplays: Bool
    }

    /// A commit not settled yet, with what capturing subscribers took of it when it happened.
    private struct Held {
        let commit: SettledCommit
        var captured: [(id: Int, value: Any)] = []
    }

    private var subscribers: [Subscriber] = []
    private var nextID = 1
    /// Commits not settled yet: of the group open now, or of all-or-nothing work still running.
    private var held = SettlingQueue<Held>()
    /// Whether any subscriber captures: only then is anything taken as a commit happens.
    private var captures = false

    /// Gives each commit its ``SettledCommit/time``, in seconds since 1970 (a test gives a fixed one).
    public var clock: () -> Double = { Date().timeIntervalSince1970 }

    private init() {}

    /// The stream of `dispatcher`, made (and put first among its middleware) on first use: first, so that
    /// a capturing subscriber sees the commit before any other middleware's `didDispatch` runs.
    public static func of(_ dispatcher: Dispatcher) -> SettledCommits {
        if let stream = dispatcher.middleware.lazy.compactMap({ $0 as? SettledCommits }).first { return stream }
        let stream = SettledCommits()
        dispatcher.middleware.insert(stream, at: 0)
        return stream
    }

    /// Calls `body` with every commit that settles from now on; returns the number to unsubscribe with.
    /// With `skippingReplays`, it hears no commit of a replay (``SettledCommit/isReplay``): while no
    /// subscriber wants them, a replay's commits are not even held until it settles, so a replay of a
    /// long log keeps none of its actions here.
    @discardableResult
    public func subscribe(skippingReplays: Bool = false, _ body: @escaping (SettledCommit) -> Void) -> Int {
        add(capture: nil, skippingReplays: skippingReplays) { commit, _ in body(commit) }
    }

    /// Like ``subscribe(skippingReplays:_:)``, and calls `capture` as each commit happens — the stores
    /// are then as it left them, which they may no longer be when it settles (a group's later actions) —
    /// handing what it returns to `body` with the commit once it settles. A commit rolled back is
    /// captured but never told.
    @discardableResult
    public func subscribe<Captured>(skippingReplays: Bool = false, capturing capture: @escaping (SettledCommit) -> Captured,
                                    _ body: @escaping (SettledCommit, Captured) -> Void) -> Int {
        add(capture: { capture($0) }, skippingReplays: skippingReplays) { commit, captured in
            guard let captured = captured as? Captured else { return }
            body(commit, captured)
        }
    }

    private func add(capture: ((SettledCommit) -> Any)?, skippingReplays: Bool,
                     _ body: @escaping (SettledCommit, Any?) -> Void) -> Int {
        let id = nextID
        nextID += 1
        subscribers.append(Subscriber(id: id, capture: capture, body: body, skipsReplays: skippingReplays))
        captures = subscribers.contains { $0.capture != nil }
        return id
    }

    /// Stops telling the subscriber `id`.
    public func unsubscribe(_ id: Int) {
        subscribers.removeAll { $0.id == id }
        captures = subscribers.contains { $0.capture != nil }
    }

    /// Whether anyone subscribes.
    public var isRead: Bool { !subscribers.isEmpty }

    public func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        guard !subscribers.isEmpty else { return }
        commit(.action(action), group: dispatcher.currentGroup, changed: changed, in: dispatcher)
    }

    public func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        guard !subscribers.isEmpty else { return }
        commit(.step(step, label: label), group: nil, changed: [], in: dispatcher)
    }

    public func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher) {
        guard !subscribers.isEmpty else { return }
        let encoded = states.map { EncodedState($0.target, state: $0.state) }
        commit(.states(label: label, encoded), group: nil, changed: [], in: dispatcher)
    }

    public func didRollBack(_ actions: Int, group label: String, in dispatcher: Dispatcher) {
        held.rollBack(actions)
    }

    public func didEndGroup(_ label: String, in dispatcher: Dispatcher) {
        for item in held.endGroup() { tell(item) }
    }

    public func willRunAllOrNothing(in dispatcher: Dispatcher) {
        held.beginAllOrNothing()
    }

    public func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        for item in held.endAllOrNothing(kept: kept, inGroup: dispatcher.currentGroup != nil) { tell(item) }
    }

    private func commit(_ event: SettledCommit.Event, group: (id: Int, label: String)?, changed: [String], in dispatcher: Dispatcher) {
        let isReplay = dispatcher.dropsFollowUps
        if isReplay, subscribers.allSatisfy(\.skipsReplays) { return }
        let origin: SettledCommit.Origin = dispatcher.isEffect ? .effect : dispatcher.isFollowUp ? .followUp : .direct
        var item = Held(commit: SettledCommit(event: event, group: group, changed: changed, origin: origin, isReplay: isReplay,
                                              time: clock()))
        if captures {
            for subscriber in subscribers where !(subscriber.skipsReplays && isReplay) {
                if let capture = subscriber.capture { item.captured.append((subscriber.id, capture(item.commit))) }
            }
        }
        guard !held.holds(item, inGroup: group != nil) else { return }
        for earlier in held.takeHeld() { tell(earlier) }
        tell(item)
    }

    private func tell(_ item: Held) {
        let commit = item.commit
        for subscriber in subscribers where !(subscriber.skipsReplays && commit.isReplay) {
            if subscriber.capture == nil {
                subscriber.body(commit, nil)
            } else if let captured = item.captured.first(where: { $0.id == subscriber.id }) {
                subscriber.body(commit, captured.value) // one that subscribed after the commit happened hears nothing of it
            }
        }
    }
}
