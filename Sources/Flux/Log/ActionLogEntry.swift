import Foundation

/// One line of an action log (JSON Lines): an action with its payload, when it ran, the undo group it
/// belonged to and whether a subscriber dispatched it — or an undo or redo step.
///
/// ```json
/// {"name":"ticTacToe.placeToken","payload":{"index":4},"group":3,"label":"Place token","time":1795000000.5}
/// {"name":"audit.note","payload":{"text":"x"},"followUp":true,"time":1795000000.5}
/// {"name":"clock.tick","payload":{},"effect":true,"time":1795000001.0}
/// {"step":"undo","time":1795000001.2}
/// {"states":[{"store":"counter","format":"json","state":"{\"count\":3}"}],"label":"goto 5","time":1795000002.0}
/// ```
///
/// Actions carry `name`, steps carry `step`: no action name, not even `flux.undo`, reads as a step. A
/// `states` line puts stores to the states it holds, as one undo step (``Dispatcher/setStates(_:label:)``).
public struct ActionLogEntry {
    /// What the line records.
    public enum Event {
        /// An action as dispatched.
        case action(any Action)
        /// An undo or redo step.
        case step(HistoryStep)
        /// Stores put to the states given, as one undo step with its label.
        case states(label: String, [EncodedState])
    }

    /// The action or step.
    public var event: Event
    /// Seconds since 1970 when it ran.
    public var time: Double
    /// The undo group the action ran in, with its label.
    public var group: (id: Int, label: String)?
    /// Whether a subscriber dispatched the action while the one before it was published: a replay
    /// dispatches it in its place instead of letting subscribers dispatch it again.
    public var isFollowUp = false
    /// Whether an effect's callback (a timer, a process, a watch, a listener) dispatched the action: a
    /// replay dispatches it in its place and starts no effect.
    public var isEffect = false

    /// An entry for a dispatched action.
    public init(action: any Action, time: Double, group: (id: Int, label: String)? = nil, isFollowUp: Bool = false) {
        self.event = .action(action)
        self.time = time
        self.group = group
        self.isFollowUp = isFollowUp
    }

    private init(event: Event, time: Double) {
        self.event = event
        self.time = time
    }

    /// An entry for an undo or redo step.
    public init(step: HistoryStep, time: Double) {
        self.event = .step(step)
        self.time = time
    }

    /// An entry for stores put to `states` as one undo step labelled `label`.
    public init(states: [(target: any DispatchTarget, state: Any)], label: String, time: Double) {
        self.event = .states(label: label, states.map { EncodedState($0.target, state: $0.state) })
        self.time = time
    }

    /// The action's name, `undo` / `redo` for a step, the label for states (for listings; the line itself keeps them apart).
    public var name: String {
        switch event {
        case let .action(action): action.name
        case let .step(step): step.rawValue
        case let .states(label, _): label
        }
    }

    /// The action, nil for a step.
    public var action: (any Action)? {
        if case let .action(action) = event { return action }
        return nil
    }

    /// The entry as one line of JSON, without the newline.
    public func jsonLine() throws -> String {
        var line: [UInt8] = []
        try writeLine(into: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// Appends an action's payload as JSON, in UTF-8, to a buffer.
    public typealias PayloadWriter = (_ action: any Action, _ bytes: inout [UInt8]) throws -> Void

    /// Appends the entry as ``jsonLine()`` writes it, in UTF-8, to `line`; `payload`, when given, writes
    /// an action's payload instead of its own ``Action/writePayloadJSON(into:)``. On a throw, `line`
    /// may hold part of the entry.
    public func writeLine(into line: inout [UInt8], payload: PayloadWriter? = nil) throws {
        // Written in place, field after field, into bytes, with no string made: a journal writes one
        // line per action it saves.
        func add(_ piece: StaticString) { piece.withUTF8Buffer { line.append(contentsOf: $0) } }
        add("{")
        switch event {
        case let .action(action):
            add(#""name":"#)
            JSONText.appendQuoted(action.name, to: &line)
            add(#","payload":"#)
            if let payload { try payload(action, &line) } else { try action.writePayloadJSON(into: &line) }
            if isFollowUp { add(#","followUp":true"#) }
            if isEffect { add(#","effect":true"#) }
        case let .step(step):
            add(#""step":"#)
            JSONText.appendQuoted(step.rawValue, to: &line)
        case let .states(label, states):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            add(#""states":"#)
            line.append(contentsOf: try encoder.encode(states))
            add(#","label":"#)
            JSONText.appendQuoted(label, to: &line)
        }
        if let group {
            add(#","group":"#)
            JSONText.appendInteger(group.id, to: &line)
            add(#","label":"#)
            JSONText.appendQuoted(group.label, to: &line)
        }
        add(#","time":"#)
        if !JSONText.appendFloat(time, to: &line) { add("0.0") }
        add("}")
    }

    /// How actions of `action`'s type write their payload: their own
    /// ``Action/writePayloadJSON(into:)``, which every action has.
    public static func payloadWriter(for action: any Action) -> PayloadWriter {
        { action, bytes in try action.writePayloadJSON(into: &bytes) }
    }

    /// The entry's line; for an action whose payload does not encode, a line that names it and says so
    /// (`"unencodable": true`), so the gap in the log is visible and a replay stops there.
    public var line: String {
        (try? jsonLine()) ?? unencodableLine
    }

    /// The line that stands for the entry when its payload does not encode (see ``line``).
    public var unencodableLine: String {
        #"{"name":\#(JSONText.quote(name)),"unencodable":true}"#
    }

    /// An action's payload as JSON: its own text when it writes one, else `JSONEncoder`'s
    /// (``Action/writePayloadJSON(into:)``).
    public static func payloadJSON(of action: any Action) throws -> String {
        if let exact = action as? any ExactJSONPayload { return try exact.payloadJSON() }
        var bytes: [UInt8] = []
        try action.writePayloadJSON(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Builds an action from its name and its payload as `JSONSerialization` parsed it (nil when the
    /// line has none); a number parsed from `2.0` is a double, from `2` an integer.
    public typealias Decode = (_ name: String, _ payload: Any?) throws -> any Action

    /// The ``Decode`` that builds actions through `registry` from JSON.
    public static func decoding(with registry: ActionRegistry) -> Decode {
        { name, payload in
            let json = try payload.map { try JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed]) }
            return try registry.decode(name, json: json)
        }
    }

    /// Parses one line, building its action through `registry`.
    ///
    /// - Throws: ``ActionError`` for an unknown action or a payload that does not decode, or a
    ///   ``LogLineError`` for a line that is not an entry.
    public static func parse(_ line: String, registry: ActionRegistry) throws -> ActionLogEntry {
        try parse(line, decode: decoding(with: registry))
    }

    /// Parses one line, building its action with `decode`.
    public static func parse(_ line: String, decode: Decode) throws -> ActionLogEntry {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [])
        } catch {
            throw LogLineError("not JSON")
        }
        guard let members = object as? [String: Any] else { throw LogLineError("not a JSON object") }
        let time = try number(members["time"], "time") ?? 0
        var group: (id: Int, label: String)?
        if let id = members["group"] {
            guard let id = id as? NSNumber, String(cString: id.objCType) != "d", let number = Int(exactly: id.int64Value) else {
                throw LogLineError("'group' must be an integer")
            }
            let label = members["label"].map { $0 as? String } ?? "group \(number)"
            guard let label else { throw LogLineError("'label' must be a string") }
            group = (number, label)
        }
        switch (members["name"], members["step"]) {
        case let (name as String, nil):
            let payload = members["payload"].flatMap { $0 is NSNull ? nil : $0 }
            var entry = ActionLogEntry(action: try decode(name, payload), time: time, group: group)
            switch members["followUp"] {
            case nil: break
            case let flag as Bool: entry.isFollowUp = flag
            default: throw LogLineError("'followUp' must be true or false")
            }
            switch members["effect"] {
            case nil: break
            case let flag as Bool: entry.isEffect = flag
            default: throw LogLineError("'effect' must be true or false")
            }
            return entry
        case let (nil, step as String):
            guard let step = HistoryStep(rawValue: step) else {
                throw LogLineError("'step' must be \"undo\" or \"redo\", got \(JSONText.quote(step))")
            }
            var entry = ActionLogEntry(step: step, time: time)
            entry.group = group
            return entry
        case (nil, nil) where members["states"] != nil:
            // Only a list goes back to JSONSerialization, which traps on anything else at the top level.
            guard let states = (members["states"] as? [Any]).flatMap({ try? JSONSerialization.data(withJSONObject: $0) })
                .flatMap({ try? JSONDecoder().decode([EncodedState].self, from: $0) }) else {
                throw LogLineError("'states' must be a list of {\"store\", \"format\", \"state\"}")
            }
            guard let label = (members["label"] ?? "states") as? String else { throw LogLineError("'label' must be a string") }
            return ActionLogEntry(event: .states(label: label, states), time: time)
        case (nil, nil):
            throw LogLineError("no 'name' (an action), 'step' (undo or redo) or 'states'")
        case (_?, _?):
            throw LogLineError("both 'name' and 'step': a line is an action or a step, not both")
        default:
            throw LogLineError(members["name"] != nil ? "'name' must be a string" : "'step' must be a string")
        }
    }

    private static func number(_ value: Any?, _ field: String) throws -> Double? {
        guard let value else { return nil }
        guard let number = value as? NSNumber else {
            throw LogLineError("'\(field)' must be a number")
        }
        return number.doubleValue
    }
}

/// Why a line of an action log is not an entry.
public struct LogLineError: Error, CustomStringConvertible {
    /// What is wrong with the line.
    public let description: String
    init(_ description: String) { self.description = description }
}
