import Flux
import FluxEffects
#if canImport(Glibc)
import Glibc
#endif

/// `flux.after`, `flux.every`, `flux.spawn`, `flux.watch_path`, `flux.on`, `flux.effects`, and for tests
/// `flux.advance` and `flux.settle`; `flux.effect`, the object type of the handles they return.
///
/// Every callback runs as a first-class call: under the instruction budget, stoppable by Ctrl-C, owned by
/// whoever started the effect (what it defines or starts belongs to that owner), its dispatches marked as
/// an effect's; its error is reported once with its traceback and counted (`:errors`).
extension FluxHost {
    /// The effects runtime: what Lua's effects run on, and what a Swift feature starts its own on.
    public var effects: Effects { effectsState.runtime }

    /// Asked while `flux.advance` and `flux.settle` wait: true (Ctrl-C) stops them.
    public var effectsShouldStop: () -> Bool {
        get { effectsState.shouldStop }
        set { effectsState.shouldStop = newValue }
    }

    /// How many effect callbacks have raised an error (a batch run fails when any did).
    public var failedEffectCallbacks: Int { effectsState.failures }

    // MARK: Timers

    /// `flux.after(ms, fn)` → handle; `fn()` once, `ms` milliseconds from now.
    func after(_ arguments: LuaArguments) throws -> Int32 {
        try startTimer(arguments, repeating: false)
    }

    /// `flux.every(ms, fn)` → handle; `fn()` every `ms` milliseconds, the first time `ms` from now.
    func every(_ arguments: LuaArguments) throws -> Int32 {
        try startTimer(arguments, repeating: true)
    }

    private func startTimer(_ arguments: LuaArguments, repeating: Bool) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        guard let delay = lua.number(at: 1), lua.type(at: 1) == .number else {
            throw arguments.error(1, "milliseconds expected, got \(lua.type(at: 1).name)")
        }
        let function = try arguments.function(2)
        try refuseEffectInHandler(arguments.function)
        let owner = runningOwner
        let kind: EffectKind = repeating ? .every : .after
        if let inert = inertDuringReplay(kind, detail: "\(Effects.milliseconds(delay))") { return push(inert, on: lua) }
        let source = "\(arguments.function) callback of \(owner.effectOwner)"
        let effect: Effect
        do {
            let body: () -> Void = { [reference] in
                reference.host?.runEffectCallback(function, owner: owner, source: source) { _ in }
            }
            effect = repeating ? try effects.every(delay, owner: owner.effectOwner, body)
                : try effects.after(delay, owner: owner.effectOwner, body)
        } catch let error as EffectError {
            throw arguments.error(1, error.description)
        }
        return push(effect, on: lua)
    }

    // MARK: Processes

    /// `flux.spawn(argv, opts)` → handle; runs `argv[1]` with the other items as its arguments.
    func spawn(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        guard lua.type(at: 1) == .table else {
            let got = lua.type(at: 1)
            throw arguments.error(1, got == .string
                ? "a list of the program and its arguments expected, got a string (no shell runs it: write {\"sh\", \"-c\", text} for one)"
                : "a list of the program and its arguments expected, got \(got.name)")
        }
        var argv: [String] = []
        let count = lua.rawLength(at: 1)
        for index in 1 ... max(count, 1) {
            defer { lua.pop() }
            guard lua.rawGet(index, from: 1) == .string || lua.type(at: -1) == .number, let item = lua.string(at: -1) else {
                throw arguments.error(1, count == 0 ? "the list is empty: name a program first"
                    : "item \(index) must be a string, got \(lua.type(at: -1).name)")
            }
            argv.append(item)
        }
        var options = Effects.ProcessOptions()
        var onLine: LuaRef?, onExit: LuaRef?
        if !lua.isNil(at: 2) {
            try arguments.expect(.table, at: 2)
            let known: Set<String> = ["on_line", "on_exit", "cwd", "env", "stdin", "timeout_ms"]
            var unknown: [String] = []
            try lua.forEachPair(in: 2) {
                guard let key = lua.type(at: -2) == .string ? lua.string(at: -2) : nil, known.contains(key) else {
                    unknown.append(lua.string(at: -2) ?? "?")
                    return
                }
                switch key {
                case "on_line", "on_exit":
                    guard lua.type(at: -1) == .function else { throw arguments.error(2, "'\(key)' must be a function, got \(lua.type(at: -1).name)") }
                    if key == "on_line" { onLine = lua.ref(at: -1) } else { onExit = lua.ref(at: -1) }
                case "cwd":
                    guard lua.type(at: -1) == .string, let cwd = lua.string(at: -1) else { throw arguments.error(2, "'cwd' must be a string") }
                    options.directory = cwd
                case "timeout_ms":
                    guard lua.type(at: -1) == .number, let limit = lua.number(at: -1) else { throw arguments.error(2, "'timeout_ms' must be a number") }
                    options.timeout = limit
                case "stdin":
                    switch lua.type(at: -1) {
                    case .string: options.input = .text(lua.string(at: -1) ?? "")
                    case .boolean: options.input = lua.isTruthy(at: -1) ? .open : .closed
                    default: throw arguments.error(2, "'stdin' must be a string (the text to write) or true (to write with :write)")
                    }
                default: // env
                    guard lua.type(at: -1) == .table else { throw arguments.error(2, "'env' must be a table of names to strings") }
                    try lua.forEachPair(in: -1) {
                        guard lua.type(at: -2) == .string, let name = lua.string(at: -2),
                              lua.type(at: -1) == .string || lua.type(at: -1) == .number, let value = lua.string(at: -1) else {
                            throw arguments.error(2, "'env' must map names to strings")
                        }
                        options.environment[name] = value
                    }
                }
            }
            if !unknown.isEmpty {
                throw arguments.error(2, "unknown option\(unknown.count == 1 ? "" : "s") \(unknown.sorted().joined(separator: ", ")) (known: \(known.sorted().joined(separator: ", ")))")
            }
        }
        try refuseEffectInHandler(arguments.function)
        let owner = runningOwner
        let detail = argv.joined(separator: " ")
        if let inert = inertDuringReplay(.process, detail: detail) { return push(inert, on: lua) }
        let source = "flux.spawn callback of \(owner.effectOwner) (\(argv[0]))"
        let effect: Effect
        do {
            effect = try effects.spawn(argv, options: options, owner: owner.effectOwner, onLine: { [reference] line, stream in
                guard let onLine else { return }
                reference.host?.runEffectCallback(onLine, owner: owner, source: source) { lua in
                    lua.push(line)
                    lua.push(stream.rawValue)
                }
            }, onExit: { [reference] code, signal in
                guard let onExit else { return }
                reference.host?.runEffectCallback(onExit, owner: owner, source: source) { lua in
                    if let code { lua.push(code) } else { lua.pushNil() }
                    if let signal { lua.push(Self.signalName(signal)) } else { lua.pushNil() }
                }
            })
        } catch let error as EffectError {
            throw FluxScriptError("flux.spawn: \(error)")
        }
        return push(effect, on: lua)
    }

    /// `SIGTERM` → `"TERM"`.
    static func signalName(_ signal: Int32) -> String {
        signalNames.first { $0.value == signal }?.key ?? String(signal)
    }

    static let signalNames: [String: Int32] = [
        "HUP": SIGHUP, "INT": SIGINT, "QUIT": SIGQUIT, "KILL": SIGKILL, "TERM": SIGTERM, "USR1": SIGUSR1,
        "USR2": SIGUSR2, "PIPE": SIGPIPE, "ALRM": SIGALRM, "STOP": SIGSTOP, "CONT": SIGCONT, "ABRT": SIGABRT,
        "SEGV": SIGSEGV,
    ]

    // MARK: Watches

    /// `flux.watch_path(path, fn)` → handle; `fn(event, name)` when the file or folder changes.
    func watchPath(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        guard lua.type(at: 1) == .string, let path = lua.string(at: 1) else {
            throw arguments.error(1, "path expected, got \(lua.type(at: 1).name)")
        }
        let function = try arguments.function(2)
        try refuseEffectInHandler(arguments.function)
        let owner = runningOwner
        if let inert = inertDuringReplay(.watch, detail: path) { return push(inert, on: lua) }
        let source = "flux.watch_path callback of \(owner.effectOwner) (\(path))"
        let effect: Effect
        do {
            effect = try effects.watch(path, owner: owner.effectOwner) { [reference] change, name in
                reference.host?.runEffectCallback(function, owner: owner, source: source) { lua in
                    lua.push(change.rawValue)
                    lua.push(name)
                }
            }
        } catch let error as EffectError {
            throw FluxScriptError("flux.watch_path: \(error)")
        }
        return push(effect, on: lua)
    }

    // MARK: Listeners

    /// `flux.on(action_or_pattern, fn)` → handle; `fn(action)` after each matching action has committed.
    func on(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 2)
        guard lua.type(at: 1) == .string, let text = lua.string(at: 1), !text.isEmpty else {
            throw arguments.error(1, "action name or pattern expected (\"issues.add\", \"issues.*\", \"*\"), got \(lua.type(at: 1).name)")
        }
        let function = try arguments.function(2)
        try refuseEffectInHandler(arguments.function)
        let pattern = ActionPattern(text)
        let owner = runningOwner
        listenToCommits()
        effectsState.listeners.removeAll { !$0.effect.isActive }
        let effect = effects.listener(owner: owner.effectOwner, detail: text)
        effectsState.listeners.append(HostEffects.Listener(effect: effect, pattern: pattern, function: function, owner: owner))
        return push(effect, on: lua)
    }

    /// Queues the listeners of a settled commit; they run once the dispatcher is idle.
    func listen(to commit: SettledCommit) {
        // A replay starts no effect: its recorded actions replay instead. A step or a setting of states is no action.
        guard !commit.isReplay, let action = commit.action else { return }
        let name = action.name
        for listener in effectsState.listeners where listener.effect.isActive && listener.pattern.matches(name) {
            effectsState.queue((listener, action))
        }
        if !effectsState.pending.isEmpty, !effectsState.drainScheduled {
            effectsState.drainScheduled = true
            effects.soon { [reference] in reference.host?.runListeners() }
        }
    }

    /// Runs the listener calls queued, in order, if the dispatcher is idle (not inside a dispatch, a group
    /// or a replay): after `flux.dispatch` and `flux.group` return, after an effect's callback, and at the
    /// loop's next round.
    public func runListeners() {
        effectsState.drainScheduled = false
        guard !effectsState.runningListeners, dispatcher.isIdle, !dispatcher.dropsFollowUps else { return }
        effectsState.runningListeners = true
        defer { effectsState.runningListeners = false }
        while let call = effectsState.next() {
            let (listener, action) = call
            guard listener.effect.isActive else { continue }
            let source = "flux.on('\(listener.pattern)') listener of \(listener.owner.effectOwner)"
            runEffectCallback(listener.function, owner: listener.owner, source: source, drain: false) { [self] lua in
                try pushAction(action, on: lua)
            }
        }
    }

    // MARK: Listing

    /// `flux.effects()` → the live effects, oldest first: `{id, owner, kind, what, age_ms, next_ms, handle}`.
    func listEffects(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 0)
        let now = effects.now
        lua.pushTable()
        for (index, effect) in effects.live.enumerated() {
            lua.pushTable()
            lua.push(effect.id); lua.rawSet("id", in: -2)
            lua.push(effect.owner.description); lua.rawSet("owner", in: -2)
            lua.push(effect.kind.rawValue); lua.rawSet("kind", in: -2)
            lua.push(effect.detail); lua.rawSet("what", in: -2)
            lua.push(Int(now - effect.started)); lua.rawSet("age_ms", in: -2)
            if let due = effect.due { lua.push(Int(max(0, due - now))); lua.rawSet("next_ms", in: -2) }
            if let pid = effect.pid { lua.push(Int(pid)); lua.rawSet("pid", in: -2) }
            lua.push(effect, as: effectsState.effectType); lua.rawSet("handle", in: -2)
            lua.rawSet(index + 1, in: -2)
        }
        return 1
    }

    // MARK: Tests

    /// `flux.advance(ms)` → how many timers fired: moves the virtual clock (`fluxsh test`) on.
    func advance(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        guard lua.type(at: 1) == .number, let milliseconds = lua.number(at: 1) else {
            throw arguments.error(1, "milliseconds expected, got \(lua.type(at: 1).name)")
        }
        try refuseEffectInHandler(arguments.function)
        runListeners()
        do {
            let fired = try effects.advance(by: milliseconds, shouldStop: effectsState.shouldStop)
            lua.push(fired)
        } catch let error as EffectError {
            throw arguments.error(1, error.description)
        }
        return 1
    }

    /// `flux.settle([timeout_ms])`: waits until no process runs and what watches saw was handed on.
    func settle(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        var timeout = 5000.0
        if !lua.isNil(at: 1) {
            guard lua.type(at: 1) == .number, let value = lua.number(at: 1) else {
                throw arguments.error(1, "milliseconds expected, got \(lua.type(at: 1).name)")
            }
            timeout = value
        }
        try refuseEffectInHandler(arguments.function)
        runListeners()
        do {
            try effects.settle(timeout: timeout, shouldStop: effectsState.shouldStop)
        } catch let error as EffectError {
            throw FluxScriptError("flux.settle: \(error)")
        }
        runListeners()
        return 0
    }

    // MARK: Running callbacks

    /// Calls `function` for an effect of `owner`: as the owner (what it starts is the owner's), its
    /// dispatches marked as an effect's, its error reported and counted; then the listeners it set off.
    func runEffectCallback(_ function: LuaRef, owner: Owner, source: String, drain: Bool = true,
                           arguments: (LuaStack) throws -> Void) {
        do {
            try asEffect(of: owner) { try vm.call(function, arguments: arguments) }
        } catch {
            effectsState.failures += 1
            report(error, heading: "error in \(source)", source: source, callback: source)
        }
        if drain { runListeners() }
    }

    /// Runs `body` as an effect's callback of `owner` does: what it starts is the owner's, what it
    /// dispatches is marked as an effect's.
    func asEffect(of owner: Owner, _ body: () throws -> Void) throws {
        let outerOwner = runningOwner, wasEffect = dispatcher.isEffect
        runningOwner = owner
        dispatcher.isEffect = true
        defer {
            runningOwner = outerOwner
            dispatcher.isEffect = wasEffect
        }
        try body()
    }

    /// Ends every effect of `owner`: its plugin was unloaded, or reloaded successfully.
    func endEffects(of owner: Owner) {
        effects.end(ownedBy: owner.effectOwner)
        effectsState.listeners.removeAll { !$0.effect.isActive }
    }

    /// Ends the effects a failed run of `owner`'s file started: those not in `kept`.
    func endEffects(of owner: Owner, except kept: Set<Int>) {
        for effect in effects.live(ownedBy: owner.effectOwner) where !kept.contains(effect.id) { effect.cancel() }
        effectsState.listeners.removeAll { !$0.effect.isActive }
    }

    /// Handlers stay pure: no effect starts while a store handles an action.
    private func refuseEffectInHandler(_ function: String) throws {
        if dispatcher.isDispatching {
            throw FluxScriptError("\(function) cannot run in a store's handler: handlers stay pure; start effects from flux.on(action, fn), which runs once the action has committed")
        }
        try refuseWhileRendering(function)
    }

    /// During a replay no effect starts: the actions effects dispatched are in the log and replay in their places.
    private func inertDuringReplay(_ kind: EffectKind, detail: String) -> Effect? {
        dispatcher.dropsFollowUps ? effects.inert(kind, owner: runningOwner.effectOwner, detail: detail) : nil
    }

    private func push(_ effect: Effect, on lua: LuaStack) -> Int32 {
        lua.push(effect, as: effectsState.effectType)
        return 1
    }

    // MARK: The handle object

    /// Fills `flux.effect`: `cancel`, `active`, `pid`, `write`, `close_stdin`, `kill`, `<close>`, `tostring`.
    func defineEffectType() {
        effectsState.effectType.method("cancel") { _, effect in
            effect.cancel()
            return 0
        }
        effectsState.effectType.method("active") { lua, effect in
            lua.push(effect.isActive)
            return 1
        }
        effectsState.effectType.method("pid") { lua, effect in
            if let pid = effect.pid { lua.push(Int(pid)) } else { lua.pushNil() }
            return 1
        }
        effectsState.effectType.method("write") { lua, effect in
            guard effect.kind == .process else { throw FluxScriptError("write: this effect is a \(effect.kind.rawValue), not a process") }
            guard lua.type(at: 2) == .string || lua.type(at: 2) == .number, let text = lua.string(at: 2) else {
                throw LuaArgumentError(2, function: "write", "string expected, got \(lua.type(at: 2).name)")
            }
            do { try effect.write(text) } catch let error as EffectError { throw FluxScriptError("write: \(error)") }
            return 0
        }
        effectsState.effectType.method("close_stdin") { _, effect in
            effect.closeInput()
            return 0
        }
        effectsState.effectType.method("kill") { lua, effect in
            guard effect.kind == .process else { throw FluxScriptError("kill: this effect is a \(effect.kind.rawValue), not a process") }
            var signal = SIGTERM
            switch lua.type(at: 2) {
            case .nil, .none: break
            case .number: signal = Int32(clamping: lua.integer(at: 2) ?? 0)
            case .string:
                let name = (lua.string(at: 2) ?? "").uppercased()
                guard let number = Self.signalNames[name.hasPrefix("SIG") ? String(name.dropFirst(3)) : name] else {
                    throw LuaArgumentError(2, function: "kill", "unknown signal '\(lua.string(at: 2) ?? "")' (known: \(Self.signalNames.keys.sorted().joined(separator: ", ")))")
                }
                signal = number
            default: throw LuaArgumentError(2, function: "kill", "signal name or number expected, got \(lua.type(at: 2).name)")
            }
            guard signal > 0, signal < 65 else { throw LuaArgumentError(2, function: "kill", "no signal \(signal)") }
            guard effect.isActive else { return 0 } // it ended already: nothing to stop
            do { try effect.kill(signal) } catch let error as EffectError { throw FluxScriptError("kill: \(error)") }
            return 0
        }
        effectsState.effectType.metamethod(.close) { _, effect in
            effect.cancel()
            return 0
        }
        effectsState.effectType.metamethod(.toString) { lua, effect in
            let what = effect.kind == .after || effect.kind == .every ? effect.detail : "\(effect.kind.rawValue) \(effect.detail)"
            lua.push("flux.effect \(effect.id) (\(what), \(effect.owner)\(effect.isActive ? "" : ", ended"))")
            return 1
        }
        vm.stack.register(effectsState.effectType)
    }

    /// Starts listening to settled commits and defines the handle type (from `installModule`).
    func installEffects() {
        defineEffectType()
    }

    /// Reads the stream of settled commits from the first listener on: until then no dispatch pays for it.
    private func listenToCommits() {
        guard effectsState.commitSubscription == nil else { return }
        effectsState.commitSubscription = SettledCommits.of(dispatcher).subscribe(skippingReplays: true) { [reference] commit in
            reference.host?.listen(to: commit)
        }
    }
}
