import CFluxLoop
import Foundation

/// The effects runtime: timers, processes and file watches on the shell's ``EventLoop``, each owned by
/// whoever started it, so that ending an owner ends what it started.
///
/// One runtime serves Lua (`flux.after`, `flux.spawn`, …) and Swift features alike: the host hands its
/// ``Effects`` to whoever needs one.
///
/// ```swift
/// let effects = Effects()
/// let tick = try effects.every(1000, owner: EffectOwner("swift clock")) { print("tick") }
/// try effects.spawn(["ls", "-l"], owner: .session, onLine: { line, _ in print(line) }, onExit: { _, _ in })
/// effects.runUntilIdle()            // while anything is live
/// tick.cancel()
/// ```
///
/// Callbacks run on the loop's thread, one at a time, never inside another callback or a dispatch.
/// With a ``Clock/virtual`` clock timers fire only when ``advance(by:shouldStop:)`` says so (tests);
/// processes and watches stay real.
public final class Effects {
    /// How time passes for timers.
    public enum Clock: Sendable {
        /// The loop's clock: timers fire as time passes.
        case real
        /// A clock only ``Effects/advance(by:shouldStop:)`` moves: timers fire in tests at once, in order.
        case virtual
    }

    /// A process's options.
    public struct ProcessOptions {
        /// Its working folder; nil for the shell's.
        public var directory: String?
        /// Variables set (or replaced) in its environment, which is otherwise the shell's.
        public var environment: [String: String] = [:]
        /// Its standard input.
        public var input: Input = .closed
        /// Milliseconds after which it is ended (SIGTERM, then SIGKILL after the grace period); nil for never.
        public var timeout: Double?

        /// What the process reads.
        public enum Input {
            /// Nothing: it reads the end of its input at once.
            case closed
            /// This text, then the end of its input.
            case text(String)
            /// What ``Effect/write(_:)`` writes, until ``Effect/closeInput()``.
            case open
        }

        public init(directory: String? = nil, environment: [String: String] = [:], input: Input = .closed, timeout: Double? = nil) {
            self.directory = directory
            self.environment = environment
            self.input = input
            self.timeout = timeout
        }
    }

    /// Which of a process's streams a line came from.
    public enum Stream: String, Sendable {
        case stdout, stderr
    }

    /// The longest delay or interval a timer takes: a year, in milliseconds.
    public static let longestDelay: Double = 365 * 24 * 3600 * 1000

    /// The clock timers run on.
    public let clock: Clock
    /// How long an ended process has between SIGTERM and SIGKILL, in milliseconds.
    public var gracePeriod: Double = 2000
    /// How many processes one owner may have running at once.
    public var processLimit = 64
    /// Called before and after every callback (the shell hides the prompt being edited, then redraws it).
    public var willRunCallback: (() -> Void)? {
        get { hooks.will }
        set { hooks.will = newValue }
    }
    public var didRunCallback: (() -> Void)? {
        get { hooks.did }
        set { hooks.did = newValue }
    }
    /// Both hooks in one property: a callback reads them with one access (one run-time exclusivity check).
    private var hooks: (will: (() -> Void)?, did: (() -> Void)?) = (nil, nil)

    /// The loop of the thread the runtime was made on, which it must be used from (released elsewhere,
    /// it ends its effects there).
    public let loop = EventLoop.shared
    private var effects: [Int: Effect] = [:]
    /// How many live effects are not listeners: what ``isBusy`` asks every round, without a scan.
    private var calling = 0
    private var nextID = 1
    private var virtualNow: Double = 0
    private var virtualTimers = TimerHeap()
    private var virtualFirings: [Int: (interval: Double?, body: () -> Void)] = [:]
    private var advancing = false
    /// Processes ended by ``Effect/cancel()``, between their SIGTERM and their end (or SIGKILL).
    private var ending: [ObjectIdentifier: ProcessChannel] = [:]

    /// A runtime on the shell's loop, its timers on `clock`.
    public init(clock: Clock = .real) {
        self.clock = clock
    }

    deinit {
        guard !loop.isCurrent else { return endAll(waiting: 0) }
        // Released on another thread than its loop's (a test's last reference, dropped elsewhere): what
        // ends its effects runs on the loop's thread, at its next round; nothing here touches the loop.
        // (Each stop finds the runtime gone: a process is SIGKILLed and reaped rather than given a grace period.)
        let stops = effects.values.map(\.stop) + internalTimers.values.map { $0 }
        for effect in effects.values { effect.isActive = false }
        let ending = Array(ending.values)
        loop.perform {
            for stop in stops { stop() }
            for channel in ending {
                channel.killAndReap()
                channel.release()
            }
        }
    }

    // MARK: What is live

    /// The live effects, oldest first.
    public var live: [Effect] {
        effects.values.sorted { $0.id < $1.id }
    }

    /// Whether no effect is live.
    public var isEmpty: Bool { effects.isEmpty }

    /// Whether a process is running (or being ended) or a watch is on: what ``settle(timeout:)`` waits for.
    public var hasPendingOutside: Bool {
        !ending.isEmpty || effects.values.contains { $0.kind == .process }
    }

    /// The clock's time in milliseconds: the loop's, or the virtual clock's (0 at the start).
    public var now: Double {
        clock == .virtual ? virtualNow : loop.preciseNow
    }

    /// The live effects of `owner`.
    public func live(ownedBy owner: EffectOwner) -> [Effect] {
        live.filter { $0.owner == owner }
    }

    // MARK: Timers

    /// Calls `body` once, `delay` milliseconds from now.
    ///
    /// - Throws: ``EffectError`` for a delay that is negative, not a number, or longer than a year.
    @discardableResult
    public func after(_ delay: Double, owner: EffectOwner, _ body: @escaping () -> Void) throws -> Effect {
        try Self.check(delay, "delay", least: 0)
        return timer(delay, repeating: nil, owner: owner, body)
    }

    /// Calls `body` every `interval` milliseconds, the first time `interval` from now.
    ///
    /// - Throws: ``EffectError`` for an interval under 1 ms, not a number, or longer than a year.
    @discardableResult
    public func every(_ interval: Double, owner: EffectOwner, _ body: @escaping () -> Void) throws -> Effect {
        try Self.check(interval, "interval", least: 1)
        return timer(interval, repeating: interval, owner: owner, body)
    }

    private static func check(_ value: Double, _ what: String, least: Double) throws {
        guard value.isFinite, value >= least, value <= longestDelay else {
            let shown = value.isNaN ? "NaN" : value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
            throw EffectError("the \(what) must be a number of milliseconds from \(Int(least)) to \(Int(longestDelay)) (a year), got \(shown)")
        }
    }

    private func timer(_ delay: Double, repeating interval: Double?, owner: EffectOwner, _ body: @escaping () -> Void) -> Effect {
        let detail = interval.map { "every \(Self.milliseconds($0))" } ?? "after \(Self.milliseconds(delay))"
        let effect = make(owner: owner, kind: interval == nil ? .after : .every, detail: detail)
        effect.due = now + delay
        switch clock {
        case .virtual:
            virtualFirings[effect.id] = (interval, body)
            virtualTimers.insert(.init(due: effect.due!, order: nextOrder(), effect: effect.id))
            effect.stop = { [weak self] in self?.virtualFirings[effect.id] = nil }
        case .real:
            // The loop's own timer, to the nanosecond; it holds its handler, so a firing is a call. The
            // effect is held strongly (until the timer is cancelled), the runtime weakly.
            let repeating = interval != nil
            let timer = loop.schedule(after: Self.nanoseconds(delay), every: interval.map(Self.nanoseconds) ?? 0) { [weak self] in
                guard let self, effect.isActive else { return }
                if !repeating { self.end(effect) }
                self.run(body)
            }
            effect.nextDue = { [loop] in loop.due(of: timer) }
            effect.stop = { [loop] in loop.perform { loop.cancel(timer) } }
        }
        return effect
    }

    /// With the virtual clock: moves it `milliseconds` on, firing every timer that falls due on the way,
    /// in time order (timers due at the same time in the order they were set); a timer set by a callback
    /// fires too if it falls due in time. Returns how many fired.
    ///
    /// - Parameter shouldStop: Asked after each firing; true stops the advance there (Ctrl-C).
    /// - Throws: ``EffectError`` with the real clock, for a bad duration, or inside a callback it runs.
    public func advance(by milliseconds: Double, shouldStop: () -> Bool = { false }) throws -> Int {
        guard clock == .virtual else {
            throw EffectError("the clock is real here: only `fluxsh test` runs timers on a virtual clock that can be advanced")
        }
        try Self.check(milliseconds, "time to advance", least: 0)
        guard !advancing else { throw EffectError("a timer's callback cannot advance the clock it runs on") }
        advancing = true
        defer { advancing = false }
        let target = virtualNow + milliseconds
        var fired = 0
        while let next = virtualTimers.first, next.due <= target {
            _ = virtualTimers.removeFirst()
            guard let firing = virtualFirings[next.effect], let effect = effects[next.effect], effect.due == next.due else { continue }
            virtualNow = next.due
            if let interval = firing.interval {
                effect.due = next.due + interval
                virtualTimers.insert(.init(due: effect.due!, order: nextOrder(), effect: effect.id))
            } else {
                end(effect)
            }
            run(firing.body)
            fired += 1
            if shouldStop() { return fired }
        }
        virtualNow = target
        return fired
    }

    /// The order timers were (re)set in: of two due at the same time, the one set first fires first.
    private var order = 0
    private func nextOrder() -> Int {
        order += 1
        return order
    }

    // MARK: Processes

    /// Starts `argv` (a program and its arguments, no shell in between), handing each line it writes to
    /// `onLine` and its end to `onExit(code, signal)` once every line was handed on.
    ///
    /// - Throws: ``EffectError`` when the program is not found or cannot run, the folder does not exist,
    ///   or the owner has ``processLimit`` processes running.
    @discardableResult
    public func spawn(_ argv: [String], options: ProcessOptions = ProcessOptions(), owner: EffectOwner,
                      onLine: @escaping (String, Stream) -> Void,
                      onExit: @escaping (_ code: Int?, _ signal: Int32?) -> Void) throws -> Effect {
        guard let program = argv.first, !program.isEmpty else { throw EffectError("the command is empty: name a program first") }
        // C strings end at a zero byte: what follows one would be dropped without a word.
        if let index = argv.firstIndex(where: { $0.utf8.contains(0) }) {
            throw EffectError("item \(index + 1) of the command holds a zero byte, which no program's argument can")
        }
        if let name = options.environment.first(where: { $0.key.isEmpty || $0.key.contains("=") || $0.key.utf8.contains(0) || $0.value.utf8.contains(0) })?.key {
            throw EffectError("the environment variable \(name.debugDescription) cannot be set: a name is not empty and holds no '=', and no name or value a zero byte")
        }
        if options.directory?.utf8.contains(0) == true { throw EffectError("the folder to run in holds a zero byte") }
        let running = effects.values.filter { $0.owner == owner && $0.kind == .process }.count
        guard running < processLimit else {
            throw EffectError("\(owner) has \(running) processes running, the most one owner may have: wait for one to end, or kill one")
        }
        if let directory = options.directory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw EffectError("cannot run \(program) in \(directory): no such folder")
            }
        }
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in options.environment { environment[name] = value }
        let path = try Self.resolve(program, path: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin", directory: options.directory)
        let detail = argv.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
        let effect = make(owner: owner, kind: .process, detail: detail)
        var splitters = (out: LineSplitter(), err: LineSplitter())
        let id = loop.register { [weak self, weak effect] event in
            guard let self, let effect, effect.isActive else { return }
            switch event {
            case let .output(stream, bytes):
                // A line's callback may cancel the process: the lines after it are not handed on.
                if stream == 1 {
                    splitters.out.feed(bytes) { line in if effect.isActive { self.run { onLine(line, .stdout) } } }
                } else {
                    splitters.err.feed(bytes) { line in if effect.isActive { self.run { onLine(line, .stderr) } } }
                }
            case let .exit(code, signal):
                splitters.out.finish { line in self.run { onLine(line, .stdout) } }
                splitters.err.finish { line in self.run { onLine(line, .stderr) } }
                guard effect.isActive else { return } // a line's callback cancelled it
                self.end(effect)
                self.run { onExit(signal == 0 ? code : nil, signal == 0 ? nil : signal) }
            default: break
            }
        }
        var pid: Int32 = 0
        var error: Int32 = 0
        let handle = Self.withCStrings(argv) { argv in
            Self.withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
                fluxloop_spawn(UInt64(id), path, argv, envp, options.directory, &pid, &error)
            }
        }
        guard let handle else {
            loop.unregister(id)
            forget(effect)
            throw EffectError("cannot run \(program): \(String(cString: strerror(error)))")
        }
        let channel = ProcessChannel(handle: handle, name: program)
        effect.pid = pid
        effect.process = channel
        var stopTimeout: (() -> Void)?
        effect.stop = { [weak self, loop] in
            loop.perform {
                loop.unregister(id)
                stopTimeout?()
                // Without its runtime (released) no grace period can be waited for.
                if let self { self.terminate(channel) } else {
                    channel.killAndReap()
                    channel.release()
                }
            }
        }
        switch options.input {
        case .closed: channel.closeInput()
        case let .text(text):
            try? channel.write(text)
            channel.closeInput()
        case .open: break
        }
        if let limit = options.timeout {
            try Self.check(limit, "timeout", least: 0)
            stopTimeout = realTimer(after: limit) { [weak self, weak effect] in
                guard let self, let effect, effect.isActive else { return }
                try? channel.kill(SIGTERM)
                self.realTimer(after: self.gracePeriod) { [weak effect] in
                    if effect?.isActive == true { try? channel.kill(SIGKILL) }
                }
            }
        }
        return effect
    }

    /// The executable `program` names: a path (relative to `directory`), or a name found on `path`.
    static func resolve(_ program: String, path: String, directory: String?) throws -> String {
        if program.contains("/") {
            let full = program.hasPrefix("/") || directory == nil ? program : directory! + "/" + program
            guard FileManager.default.fileExists(atPath: full) else { throw EffectError("cannot run \(program): no such file") }
            guard access(full, X_OK) == 0 else { throw EffectError("cannot run \(program): it is not executable") }
            return full
        }
        for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + program
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
               access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw EffectError("cannot run \(program): no such program on PATH")
    }

    /// Runs `body` with `strings` as a NULL-terminated C array.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// SIGTERM to a process's group; SIGKILL after the grace period if it has not ended by then.
    private func terminate(_ channel: ProcessChannel) {
        guard !channel.hasExited else { return channel.release() }
        try? channel.kill(SIGTERM)
        let key = ObjectIdentifier(channel)
        ending[key] = channel
        realTimer(after: gracePeriod) { [weak self] in
            channel.killAndReap()
            channel.release()
            self?.ending[key] = nil
        }
    }

    /// A timer on the loop's clock whatever ``clock`` says, listed nowhere: a process's timeout and grace
    /// period. Returns what stops it.
    @discardableResult
    private func realTimer(after delay: Double, _ body: @escaping () -> Void) -> () -> Void {
        let key = nextInternal
        nextInternal += 1
        let timer = loop.schedule(after: Self.nanoseconds(max(0, delay))) { [weak self] in
            self?.internalTimers[key] = nil
            body()
        }
        let stop = { [weak self, loop] in
            self?.internalTimers[key] = nil
            loop.perform { loop.cancel(timer) }
        }
        internalTimers[key] = stop
        return stop
    }

    private var internalTimers: [Int: () -> Void] = [:]
    private var nextInternal = 1

    // MARK: Watches

    /// What changed in a watched path.
    public enum Change: String, Sendable {
        /// An entry was created, removed or renamed (in a watched folder), or the file replaced.
        case rename
        /// A file's content or attributes changed.
        case change
        /// The watched path itself is gone: the watch has ended.
        case removed
    }

    /// Calls `body(change, name)` when `path` (a file, or a folder and its entries) changes; `name` is the
    /// entry of a folder that changed, or the file's name.
    ///
    /// - Throws: ``EffectError`` when the path does not exist or cannot be watched.
    @discardableResult
    public func watch(_ path: String, owner: EffectOwner, _ body: @escaping (Change, String) -> Void) throws -> Effect {
        guard FileManager.default.fileExists(atPath: path) else { throw EffectError("cannot watch \(path): no such file or folder") }
        let effect = make(owner: owner, kind: .watch, detail: path)
        let id = loop.register { [weak self, weak effect] event in
            guard case let .change(rename, _, name) = event, let self, let effect, effect.isActive else { return }
            if rename, !FileManager.default.fileExists(atPath: path) {
                self.end(effect)
                self.run { body(.removed, name) }
            } else {
                self.run { body(rename ? .rename : .change, name) }
            }
        }
        var error: Int32 = 0
        guard let handle = fluxloop_watch_start(UInt64(id), path, &error) else {
            loop.unregister(id)
            forget(effect)
            throw EffectError("cannot watch \(path): \(String(cString: fluxloop_strerror(error)))")
        }
        effect.stop = { [loop] in
            loop.perform {
                fluxloop_watch_close(handle)
                loop.unregister(id)
            }
        }
        return effect
    }

    // MARK: Listeners and deferred work

    /// A listener effect: it holds no loop resource; whoever calls it asks ``Effect/isActive``, and
    /// ``end(ownedBy:)`` ends it with its owner.
    public func listener(owner: EffectOwner, detail: String) -> Effect {
        make(owner: owner, kind: .listener, detail: detail)
    }

    /// An effect that is not live and never fires: what starting an effect during a replay gives.
    public func inert(_ kind: EffectKind, owner: EffectOwner, detail: String) -> Effect {
        let effect = Effect(id: 0, owner: owner, kind: kind, detail: detail, started: now)
        effect.isActive = false
        return effect
    }

    /// Runs `body` at the loop's next round (whatever the clock), with the callback hooks around it.
    public func soon(_ body: @escaping () -> Void) {
        realTimer(after: 0) { [weak self] in self?.run(body) }
    }

    /// Whether a live effect could still call back: a timer, a process, a watch, or work queued with
    /// ``soon(_:)`` (listeners, which only other effects set off, do not count).
    public var isBusy: Bool {
        calling > 0 || !internalTimers.isEmpty || !ending.isEmpty
    }

    // MARK: Ending

    /// Ends every effect of `owner` (its plugin was unloaded or reloaded); returns how many.
    @discardableResult
    public func end(ownedBy owner: EffectOwner) -> Int {
        let owned = live(ownedBy: owner)
        for effect in owned { end(effect) }
        return owned.count
    }

    /// Ends every effect, then waits up to `waiting` milliseconds for the processes to end after their
    /// SIGTERM before it SIGKILLs and reaps what is left: no child outlives the shell.
    public func endAll(waiting: Double? = nil) {
        guard !effects.isEmpty || !ending.isEmpty || !internalTimers.isEmpty else { return }
        for effect in live { end(effect) }
        let deadline = Double(loop.now) + (waiting ?? gracePeriod)
        // One repeating tick for the whole wait: a timer made and closed each round would leave a handle
        // closing at every next round, which then does not sleep (libuv), and the wait would spin.
        let tick = ending.isEmpty ? nil : fluxloop_timer_start(0, 10, 10)
        while !ending.isEmpty, Double(loop.now) < deadline {
            if ending.values.allSatisfy(\.hasExited) { break }
            loop.runOnce()
        }
        fluxloop_timer_close(tick)
        for channel in ending.values { channel.release() }
        ending.removeAll()
        for stop in Array(internalTimers.values) { stop() }
        fluxloop_kill_all()
        loop.runOnce(wait: false) // closes the handles just closed
    }

    /// Takes `effect` out of the live list and stops it.
    func end(_ effect: Effect) {
        guard effect.isActive else { return }
        forget(effect)
        effect.stop()
        effect.stop = {}
    }

    /// Takes `effect` out of the live list.
    private func forget(_ effect: Effect) {
        effect.isActive = false
        if effects.removeValue(forKey: effect.id) != nil, effect.kind != .listener { calling -= 1 }
    }

    // MARK: Running

    /// Runs the loop while an effect is live, until `shouldStop` says so (checked after every round) or
    /// `timeout` milliseconds passed. Returns whether every effect ended. What should stop it early (a
    /// signal handler's Ctrl-C) wakes the loop (``EventLoop/wakeFunction``), so `shouldStop` is asked at once.
    @discardableResult
    public func runUntilIdle(timeout: Double? = nil, shouldStop: () -> Bool = { false }) -> Bool {
        // The time limit is a flag its timer raises: no clock read per round.
        let limit = TimeLimit()
        let waker = timeout.map { timeout in loop.schedule(after: Self.nanoseconds(max(0, timeout))) { limit.passed = true } }
        defer { if let waker { loop.cancel(waker) } }
        var ended = true
        loop.run {
            guard isBusy else { return false }
            // only the virtual clock moves its timers
            if shouldStop() || limit.passed || (clock == .virtual && !hasPendingOutside) { ended = false }
            return ended
        }
        return ended
    }

    private final class TimeLimit {
        var passed = false
    }

    /// Runs the loop until no process is running and what watches saw is handed on, or `timeout`
    /// milliseconds passed (then throws, naming what still runs).
    public func settle(timeout: Double = 5000, shouldStop: () -> Bool = { false }) throws {
        try Self.check(timeout, "timeout", least: 0)
        let deadline = Double(loop.now) + timeout
        let waker = fluxloop_timer_start(0, UInt64(timeout.rounded(.up)), 0)
        defer { fluxloop_timer_close(waker) }
        loop.runOnce(wait: false)
        while hasPendingOutside {
            if shouldStop() { throw EffectError("interrupted") }
            if Double(loop.now) >= deadline {
                let running = live.filter { $0.kind == .process }.map(\.detail)
                throw EffectError("still running after \(Self.milliseconds(timeout)): \(running.isEmpty ? "processes being ended" : running.joined(separator: ", "))")
            }
            loop.runOnce()
        }
        loop.runOnce(wait: false) // what a watch saw of the last changes
    }

    /// Runs a callback, between the hooks that keep the prompt out of its way.
    func run(_ body: () -> Void) {
        let hooks = hooks
        hooks.will?()
        body()
        hooks.did?()
    }

    private func make(owner: EffectOwner, kind: EffectKind, detail: String) -> Effect {
        let effect = Effect(id: nextID, owner: owner, kind: kind, detail: detail, started: now)
        nextID += 1
        effect.runtime = self
        effects[effect.id] = effect
        if kind != .listener { calling += 1 }
        return effect
    }

    /// Milliseconds as the loop's nanoseconds.
    private static func nanoseconds(_ milliseconds: Double) -> Int64 {
        Int64((milliseconds * 1_000_000).rounded())
    }

    /// `1500` as `1500 ms`, `60000` as `60 s`.
    public static func milliseconds(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value) ms" } // any number a script passes
        if value >= 1000, value.truncatingRemainder(dividingBy: 1000) == 0 { return "\(Int(value / 1000)) s" }
        return value == value.rounded() ? "\(Int(value)) ms" : String(format: "%.1f ms", value)
    }
}
