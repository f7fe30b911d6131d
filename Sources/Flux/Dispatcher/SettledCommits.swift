import Foundation

/// One change that has committed and can no longer be rolled back — an action, an undo or redo step, or
/// stores put to given states — as the journal, `:record`, the devtools and `flux.on` listeners read it.
/// (A reader told as commits happen, such as the journal, gets it before it settles: see
/// ``SettledCommits/subscribe(asCommitted:withdrawn:)``.)
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
/// A reader that cannot wait for a long replay to settle (a session's journal, which writes it as it
/// goes) reads the same stream as each commit happens instead (``subscribe(asCommitted:withdrawn:)``):
/// the stream then tells it how many of those commits were rolled back. The stream keeps the one
/// bookkeeping of what may still roll back (``SettlingQueue``); no reader keeps its own.
///
/// Subscribers are called while the dispatcher publishes: an action one dispatches then is queued as a
/// follow-up. To act on a commit outside the dispatch (as `flux.on` listeners do), queue the work and
/// run it once ``Dispatcher/isIdle``. Free while nobody subscribes: a commit is built only for a reader.
///
/// The dispatcher tells its stream itself, before any middleware hears of the commit: a capturing
/// subscriber sees the stores before another middleware's `didDispatch` runs; and it is no middleware,
/// so a dispatch read only by the stream keeps the dispatcher's path for "no middleware".
public final class SettledCommits {
    private struct Subscriber {
        let id: Int
        /// Called as the commit happens, with the stores as it left them; its result goes to `body`.
        let capture: ((SettledCommit) -> Any)?
        let body: (SettledCommit, Any?) -> Void
        let skipsReplays: Bool
    }

    /// A reader told each commit as it happens (``subscribe(asCommitted:withdrawn:)``).
    private struct Follower {
        let id: Int
        let body: (SettledCommit, Bool) -> Void
        let withdrawn: (Int) -> Void
    }

    /// A commit not settled yet, with what capturing subscribers took of it when it happened.
    private struct Held {
        let commit: SettledCommit
        var captured: [(id: Int, value: Any)] = []
    }

    private var subscribers: [Subscriber] = []
    private var followers: [Follower] = []
    private var nextID = 1
    /// What may still roll back: the commits held for subscribers, and how many followers were told.
    private var held = SettlingQueue<Held>()
    /// Whether any subscriber captures: only then is anything taken as a commit happens.
    private var captures = false

    /// Gives each commit its ``SettledCommit/time``, in seconds since 1970 (a test gives a fixed one; a
    /// session gives its own clock, so that its journal's times and a recording's are the same).
    public var clock: () -> Double = { Date().timeIntervalSince1970 }

    private init() {}

    /// The stream of `dispatcher`, made on first use; the dispatcher tells it of every commit from then on.
    public static func of(_ dispatcher: Dispatcher) -> SettledCommits {
        if let stream = dispatcher.hot.commits { return stream }
        let stream = SettledCommits()
        dispatcher.hot.commits = stream
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

    /// Calls `body` with every commit as it happens, before it settles — replays' too — and `withdrawn`
    /// with a count when that many of the last commits told were rolled back (a group that failed, a
    /// replay that failed or was stopped): the reader forgets them, and keeps no bookkeeping of its own.
    /// `body`'s flag says whether the commit settled at once: no group open, no all-or-nothing work
    /// running and no follow-up queued, so that nothing told so far can be withdrawn any more (a session
    /// saves only then). A commit told this way has no ``SettledCommit/changed`` (empty): building it
    /// would cost every dispatch.
    ///
    /// ```swift
    /// var names: [String] = []
    /// stream.subscribe(asCommitted: { commit, _ in names.append(commit.action?.name ?? "step") },
    ///                  withdrawn: { names.removeLast(min($0, names.count)) })
    /// ```
    @discardableResult
    public func subscribe(asCommitted body: @escaping (SettledCommit, _ settled: Bool) -> Void,
                          withdrawn: @escaping (_ count: Int) -> Void) -> Int {
        let id = nextID
        nextID += 1
        followers.append(Follower(id: id, body: body, withdrawn: withdrawn))
        return id
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
        followers.removeAll { $0.id == id }
        captures = subscribers.contains { $0.capture != nil }
    }

    /// Whether anyone subscribes.
    public var isRead: Bool { !subscribers.isEmpty || !followers.isEmpty }

    // MARK: What the dispatcher tells its stream

    /// `action` committed; `changed()` names the stores it changed (read only if a subscriber wants them).
    func didCommit(_ action: any Action, in dispatcher: Dispatcher, changed: () -> [String]) {
        let isReplay = dispatcher.dropsFollowUps
        let subscribed = wanted(isReplay: isReplay)
        guard subscribed || !followers.isEmpty else { return }
        let group = dispatcher.currentGroup
        let commit = SettledCommit(event: .action(action), group: group, changed: [], origin: dispatcher.origin,
                                   isReplay: isReplay, time: clock())
        if subscribed { hold(commit.with(changed: changed())) }
        if !followers.isEmpty { follow(commit, settled: group == nil && dispatcher.isSettled) }
    }

    /// An undo or redo step was applied and published.
    func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        tell(.step(step, label: label), in: dispatcher)
    }

    /// Targets were put to the states given (``Dispatcher/setStates(_:label:)``) and published.
    func didSetStates(_ states: [(target: any DispatchTarget, state: Any)], label: String, in dispatcher: Dispatcher) {
        guard wanted(isReplay: dispatcher.dropsFollowUps) || !followers.isEmpty else { return }
        tell(.states(label: label, states.map { EncodedState($0.target, state: $0.state) }), in: dispatcher)
    }

    /// A step or a setting of states: outside any group, and with no stores named.
    private func tell(_ event: SettledCommit.Event, in dispatcher: Dispatcher) {
        let isReplay = dispatcher.dropsFollowUps
        let subscribed = wanted(isReplay: isReplay)
        guard subscribed || !followers.isEmpty else { return }
        let commit = SettledCommit(event: event, group: nil, changed: [], origin: dispatcher.origin, isReplay: isReplay,
                                   time: clock())
        if subscribed { hold(commit) }
        if !followers.isEmpty { follow(commit, settled: dispatcher.isSettled) }
    }

    /// A failed group took back the last `actions` actions it committed.
    func didRollBack(_ actions: Int, in dispatcher: Dispatcher) {
        withdraw(held.rollBack(actions))
    }

    /// The outermost group ended without an error: what it held settles, unless all-or-nothing work runs.
    func didEndGroup(in dispatcher: Dispatcher) {
        for item in held.endGroup() { tell(item) }
    }

    /// ``Dispatcher/allOrNothing(_:)`` begins its work.
    func willRunAllOrNothing(in dispatcher: Dispatcher) {
        held.beginAllOrNothing()
    }

    /// That work ended: when not `kept`, nothing since it began happened.
    func didRunAllOrNothing(kept: Bool, in dispatcher: Dispatcher) {
        let (settled, withdrawn) = held.endAllOrNothing(kept: kept, inGroup: dispatcher.currentGroup != nil)
        withdraw(withdrawn)
        for item in settled { tell(item) }
    }

    // MARK: Telling readers

    /// Whether a subscriber wants a commit: every one of a replay's skips it, and then it is not even held.
    private func wanted(isReplay: Bool) -> Bool {
        !subscribers.isEmpty && !(isReplay && subscribers.allSatisfy(\.skipsReplays))
    }

    /// Tells the subscribers `commit` now, or holds it until it settles.
    private func hold(_ commit: SettledCommit) {
        var item = Held(commit: commit)
        if captures {
            for subscriber in subscribers where !(subscriber.skipsReplays && commit.isReplay) {
                if let capture = subscriber.capture { item.captured.append((subscriber.id, capture(commit))) }
            }
        }
        guard !held.holds(item, inGroup: commit.group != nil) else { return }
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

    /// Tells the followers `commit` as it happens. One settled at once is never withdrawn: only the
    /// others are counted.
    private func follow(_ commit: SettledCommit, settled: Bool) {
        if !settled { held.tellOne() }
        for follower in followers { follower.body(commit, settled) }
    }

    /// Tells the followers that the last `count` commits told were rolled back.
    private func withdraw(_ count: Int) {
        guard count > 0 else { return }
        for follower in followers { follower.withdrawn(count) }
    }
}

extension SettledCommit {
    /// The same commit, naming the stores it changed.
    fileprivate func with(changed: [String]) -> SettledCommit {
        SettledCommit(event: event, group: group, changed: changed, origin: origin, isReplay: isReplay, time: time)
    }
}

extension Dispatcher {
    /// Where the action being dispatched now comes from.
    var origin: SettledCommit.Origin { isEffect ? .effect : isFollowUp ? .followUp : .direct }
}
