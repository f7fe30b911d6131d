import Flux
import FluxEffects
import Foundation

/// `flux.outbox{…}` and `flux.outbox_state(name)`: committed actions queued durably and sent to the
/// outside world one at a time, in order, by a Lua `send` (see ``Outbox``; docs/outbox.md).
///
/// `send(entry, reply)` runs as an effect's callback of whoever declared the outbox (under the budget,
/// its dispatches marked as an effect's); an error in it is reported with its traceback and counts as
/// `reply("retry", error)`. `reply` may be called later, from another effect's callback.
extension FluxHost {
    /// The dispatcher's outboxes: what Lua declares, and what a Swift feature declares its own in.
    public var outboxes: OutboxCenter { OutboxCenter.of(dispatcher) }

    /// The fields `flux.outbox{…}` reads.
    static let outboxFields = ["actions", "name", "rejected", "retry", "send"]
    /// The fields of its `retry` table.
    static let outboxRetryFields = ["first_ms", "max_ms"]

    /// `flux.outbox{name, actions, send, rejected, retry = {first_ms, max_ms}}`: declares an outbox, or
    /// replaces the one of that name (its queue kept).
    func defineOutbox(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        try arguments.expect(.table, at: 1)
        try arguments.rejectUnknownKeys(at: 1, allowed: Self.outboxFields)
        guard lua.rawGet("name", from: 1) == .string, lua.rawLength(at: -1) > 0, let name = lua.string(at: -1) else {
            throw arguments.error(1, "field 'name' must be a non-empty string, got \(lua.type(at: -1).name)")
        }
        lua.pop()
        try Name.checkPrintable(name)
        let known = dispatcher.registry.names
        func checkAction(_ action: String, _ field: String) throws {
            guard dispatcher.registry.contains(action) else {
                let hint = NameSuggestion.didYouMean(action, in: known).map { ": " + $0 } ?? ""
                throw arguments.error(1, "field '\(field)' names unknown action '\(action)'\(hint) (define the stores that handle it first)")
            }
        }
        var actions: Set<String> = []
        guard lua.rawGet("actions", from: 1) == .table, lua.rawLength(at: -1) > 0 else {
            throw arguments.error(1, "field 'actions' must be a list of action names, got \(lua.type(at: -1).name)")
        }
        for index in 1 ... lua.rawLength(at: -1) {
            defer { lua.pop() }
            guard lua.rawGet(index, from: -1) == .string, let action = lua.string(at: -1) else {
                throw arguments.error(1, "field 'actions': item \(index) must be an action name, got \(lua.type(at: -1).name)")
            }
            try checkAction(action, "actions")
            actions.insert(action)
        }
        lua.pop()
        guard lua.rawGet("send", from: 1) == .function else {
            throw arguments.error(1, "field 'send' must be a function(entry, reply), got \(lua.type(at: -1).name)")
        }
        let send = lua.ref(at: -1)
        lua.pop()
        var rejected: String?
        switch lua.rawGet("rejected", from: 1) {
        case .nil: break
        case .string:
            rejected = lua.string(at: -1)
            try checkAction(rejected!, "rejected")
        case let other: throw arguments.error(1, "field 'rejected' must be an action name, got \(other.name)")
        }
        lua.pop()
        var retry = OutboxRetry()
        switch lua.rawGet("retry", from: 1) {
        case .nil: break
        case .table:
            let position = lua.top
            do {
                try LuaArguments(lua, function: arguments.function).rejectUnknownKeys(at: position, allowed: Self.outboxRetryFields)
            } catch {
                throw arguments.error(1, "field 'retry': " + error.problem)
            }
            for (key, keyPath) in [("first_ms", \OutboxRetry.first), ("max_ms", \OutboxRetry.max)] {
                defer { lua.pop() }
                switch lua.rawGet(key, from: position) {
                case .nil: continue
                case .number:
                    let value = lua.number(at: -1) ?? -1
                    guard value.isFinite, value >= 1, value <= Effects.longestDelay else {
                        throw arguments.error(1, "field 'retry.\(key)' must be milliseconds from 1 to \(Int(Effects.longestDelay)) (a year)")
                    }
                    retry[keyPath: keyPath] = value
                default: throw arguments.error(1, "field 'retry.\(key)' must be a number of milliseconds, got \(lua.type(at: -1).name)")
                }
            }
            guard retry.first <= retry.max else {
                throw arguments.error(1, "field 'retry': first_ms (\(Int(retry.first))) is past max_ms (\(Int(retry.max)))")
            }
        case let other: throw arguments.error(1, "field 'retry' must be a table {first_ms = …, max_ms = …}, got \(other.name)")
        }
        lua.pop()

        let owner = runningOwner, reference = reference
        let source = "flux.outbox '\(name)' send of \(owner.effectOwner)"
        let definition = OutboxDefinition(name: name, actions: actions, retry: retry, send: { entry, replier in
            reference.host?.sendOutboxEntry(entry, replier, send: send, owner: owner, source: source)
        }, rejected: rejected.map { action in { entry, reason in
            try reference.host?.compensate(entry, reason: reason, with: action, owner: owner)
        } })
        outboxes.report = { [reference] message in reference.host?.report(message) }
        let effects = effects
        outboxes.declare(definition, clock: OutboxClock(now: { effects.now }, after: { delay, body in
            let timer = try? effects.after(delay, owner: owner.effectOwner, body)
            return { timer?.cancel() }
        }, isVirtual: effects.clock == .virtual))
        return 0
    }

    /// Calls an outbox's Lua `send` with the entry and its `reply`, as an effect's callback of `owner`;
    /// an error is reported and counts as a retry.
    private func sendOutboxEntry(_ entry: OutboxEntry, _ replier: OutboxReplier, send: LuaRef, owner: Owner, source: String) {
        do {
            try asEffect(of: owner) { try vm.call(send) { [self] lua in
                try pushOutboxEntry(entry, on: lua)
                lua.push(function: { lua in
                    let arguments = LuaArguments(lua, function: "reply")
                    try arguments.expect(atMost: 2)
                    let kinds = ["ok", "reject", "retry"]
                    guard lua.type(at: 1) == .string, let kind = lua.string(at: 1), kinds.contains(kind) else {
                        let given = lua.type(at: 1) == .string ? "'\(lua.string(at: 1) ?? "")'" : lua.type(at: 1).name
                        let hint = lua.string(at: 1).flatMap { NameSuggestion.didYouMean($0, in: kinds) }.map { ": " + $0 } ?? ""
                        throw arguments.error(1, "\"ok\", \"retry\" or \"reject\" expected, got \(given)\(hint)")
                    }
                    let why = lua.isNil(at: 2) ? nil : lua.string(at: 2) ?? lua.type(at: 2).name
                    let reply: OutboxReply = kind == "ok" ? .ok : kind == "retry" ? .retry(why) : .reject(why)
                    if let given = replier.given {
                        throw FluxScriptError("reply: entry \(replier.entry.id) was answered already (\(Self.word(given)))")
                    }
                    replier(reply)
                    return 0
                })
            } }
        } catch {
            effectsState.failures += 1
            report(error, heading: "error in \(source)", source: source, callback: source)
            replier(.retry(Self.message(of: error)))
        }
        runListeners()
    }

    /// `ok`, `retry`, `reject`.
    private static func word(_ reply: OutboxReply) -> String {
        switch reply {
        case .ok: "ok"
        case .retry: "retry"
        case .reject: "reject"
        }
    }

    /// Pushes `{id, outbox, action, payload, json, attempt, last_error}`: the payload as a table, and as
    /// the JSON text the entry keeps (a request's body as it is).
    func pushOutboxEntry(_ entry: OutboxEntry, on lua: LuaStack) throws {
        try lua.ensureSpace(4)
        lua.pushTable(fieldCapacity: 7)
        lua.push(entry.id); lua.rawSet("id", in: -2)
        lua.push(entry.outbox); lua.rawSet("outbox", in: -2)
        lua.push(entry.action); lua.rawSet("action", in: -2)
        let payload = try JSONSerialization.jsonObject(with: Data(entry.payload.utf8), options: [.fragmentsAllowed])
        try LuaJSON.push(payload, on: lua, pairs: false)
        lua.rawSet("payload", in: -2)
        lua.push(entry.payload); lua.rawSet("json", in: -2)
        lua.push(entry.attempts); lua.rawSet("attempt", in: -2)
        if let error = entry.lastError { lua.push(error); lua.rawSet("last_error", in: -2) }
    }

    /// Dispatches `action` with `{entry = …, reason = …}` as an effect of `owner`: what undoes an
    /// entry the world refused; journaled like any action.
    private func compensate(_ entry: OutboxEntry, reason: String, with action: String, owner: Owner) throws {
        let lua = activeStack
        let top = lua.top
        defer { lua.top = top }
        try lua.ensureSpace(4)
        lua.pushTable(fieldCapacity: 2)
        try pushOutboxEntry(entry, on: lua)
        lua.rawSet("entry", in: -2)
        lua.push(reason); lua.rawSet("reason", in: -2)
        let id = try actionID(named: action, on: lua)
        let compensation = try resolver.action(id, payloadAt: lua.top, on: lua)
        try asEffect(of: owner) { try dispatcher.dispatch(compensation) }
        runListeners()
    }

    /// `flux.outbox_state(name)` → `{name, paused, pending, in_flight, sent, rejected, next_ms, entries}`,
    /// each entry `{id, action, attempts, last_error}`, oldest first.
    func outboxState(_ arguments: LuaArguments) throws -> Int32 {
        let lua = arguments.stack
        try arguments.expect(atMost: 1)
        let name = try arguments.name(1, "outbox name")
        guard let outbox = outboxes.outbox(named: name) else {
            let names = outboxes.outboxes.map(\.name)
            let hint = NameSuggestion.didYouMean(name, in: names).map { ": " + $0 } ?? ""
            throw arguments.error(1, "no outbox '\(name)'\(hint) (outboxes: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        try lua.ensureSpace(6)
        lua.pushTable(fieldCapacity: 8)
        lua.push(outbox.name); lua.rawSet("name", in: -2)
        lua.push(outbox.isPaused); lua.rawSet("paused", in: -2)
        lua.push(outbox.queue.count); lua.rawSet("pending", in: -2)
        if let id = outbox.inFlight { lua.push(id); lua.rawSet("in_flight", in: -2) }
        lua.push(outbox.sent); lua.rawSet("sent", in: -2)
        lua.push(outbox.rejected); lua.rawSet("rejected", in: -2)
        if let next = outbox.nextTry { lua.push(Int(max(0, next - effects.now).rounded(.up))); lua.rawSet("next_ms", in: -2) }
        lua.pushTable(arrayCapacity: Int32(clamping: outbox.queue.count))
        for (index, entry) in outbox.queue.enumerated() {
            lua.pushTable(fieldCapacity: 4)
            lua.push(entry.id); lua.rawSet("id", in: -2)
            lua.push(entry.action); lua.rawSet("action", in: -2)
            lua.push(entry.attempts); lua.rawSet("attempts", in: -2)
            if let error = entry.lastError { lua.push(error); lua.rawSet("last_error", in: -2) }
            lua.rawSet(index + 1, in: -2)
        }
        lua.rawSet("entries", in: -2)
        return 1
    }
}
