import CFluxLua
import CLua
import Flux

/// An action defined by a script: a name a Lua store answers to, and a payload table.
///
/// Its payload is kept as a ``LuaValue`` so that it can be logged as JSON and replayed into fresh
/// stores exactly like a Swift action.
public struct LuaAction: Action, Equatable, ExactJSONPayload {
    /// Unused: each script-defined action carries its own ``name``.
    public static let name = "lua.action"

    /// The action's name, as given to `flux.store{ on = { [name] = … } }`.
    public let name: String
    /// The payload table (an empty table when none was given).
    public let payload: LuaValue

    /// An action named `name` carrying `payload`.
    public init(name: String, payload: LuaValue) {
        self.name = name
        self.payload = payload
    }

    /// Decodes `{name = …, payload = …}`; the registry builds script actions from a bare payload instead.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        name = try container.decode(String.self, forKey: .name)
        payload = try container.decodeIfPresent(LuaValue.self, forKey: .payload) ?? .table([:])
    }

    /// Encodes the payload alone, as a Swift action encodes its fields.
    public func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
    }

    /// The payload as JSON in which a float stays a float (`2.0`). A payload with integer keys that are
    /// not a list (`{[10] = "x"}`) is written in ``LuaStateText``'s form, `{"lua-pairs-1": [[10, "x"]]}`,
    /// so they stay integers; so is one whose only key is that name, so the two cannot be confused.
    public func payloadJSON() throws -> String {
        var text: [UInt8] = []
        try writePayloadJSON(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the payload as ``payloadJSON()`` writes it, in UTF-8, to `text`, with no string of its own.
    public func writePayloadJSON(into text: inout [UInt8]) throws {
        let start = text.count
        // Most payloads are plain: written in one pass, which stops at what needs the pairs form.
        do {
            if !Self.isPairsForm(payload), try payload.writePlainJSON(into: &text) { return }
        } catch {
            // What cannot be written at all throws as it would in the form the payload is written in.
            text.removeSubrange(start...)
            if !(payload.hasIntegerKeys || payload.hasWholeFloat) { throw error }
        }
        text.removeSubrange(start...)
        text.append(contentsOf: "{\(JSONText.quote(LuaStateText.format)):".utf8)
        text.append(contentsOf: try payload.pairsJSON().utf8)
        text.append(UInt8(ascii: "}"))
    }

    /// Whether a payload's JSON is a table in ``LuaStateText``'s form: an object whose one key is its name.
    static func isPairsForm(_ payload: LuaValue) -> Bool {
        guard case let .table(fields) = payload, fields.count == 1 else { return false }
        return fields.keys.first == .string(LuaStateText.format)
    }

    private enum Keys: String, CodingKey { case name, payload }
}

extension LuaValueDecoder {
    /// Checks that a script's payload is plain data that a log can hold and replay: no cycles, no
    /// nesting past the decoder's depth, no functions, userdata or coroutines, only string and
    /// integer keys, valid UTF-8, finite numbers. Copying it into a ``LuaValue`` would otherwise
    /// drop or repair such parts silently.
    func checkPlainData() throws {
        var open: [UnsafeRawPointer] = []
        var left = LuaValue.maximumValues
        do {
            try Self.checkPlainData(at: index, path: codingPath, stack: stack, limit: options.maximumDepth, open: &open,
                                    left: &left)
        } catch is TooManyValues {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription:
                "invalid table: more than \(LuaValue.maximumValues) values (a table held in several places counts in each)"))
        }
    }

    /// Raised where the count of values runs out, reported for the whole table: that place names nothing.
    private struct TooManyValues: Error {}

    private static func checkPlainData(at index: Int32, path: [any CodingKey], stack: LuaStack, limit: Int,
                                       open: inout [UnsafeRawPointer], left: inout Int) throws {
        func refuse(_ message: String) -> DecodingError {
            DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: message))
        }
        left -= 1
        guard left >= 0 else { throw TooManyValues() }
        switch stack.type(at: index) {
        case .none, .nil, .boolean:
            return
        case .number:
            if !stack.isInteger(at: index), let number = stack.number(at: index), !number.isFinite {
                throw refuse("invalid number: \(LuaValue.render(number)) cannot be logged")
            }
        case .string:
            _ = try String.decode(from: stack, at: index, path: { path }) // throws for bytes that are not UTF-8
        case .table:
            guard let pointer = lua_topointer(stack.state, index) else { return }
            guard !open.contains(pointer) else { throw refuse("invalid table: it contains itself (a cycle)") }
            guard open.count < limit else { throw refuse("invalid table: nested deeper than \(limit) levels") }
            try stack.ensureSpace(4)
            open.append(pointer)
            defer { open.removeLast() }
            // Two keys Lua tells apart but that read as one text ([1] and ["1"], or one text in two Unicode
            // forms) are refused: a Swift action's fields, and names compared after normalisation, go by
            // the text, and one of the values would be lost there.
            var seen: Set<String> = []
            try stack.forEachPair(in: index) {        // [.., key, value]
                let key: any CodingKey
                if stack.isInteger(at: -2), let position = stack.integer(at: -2) {
                    key = LuaCodingKey(index: position - 1)
                } else if stack.type(at: -2) == .string {
                    guard let name = try? String.decode(from: stack, at: -2, path: { path }) else {
                        throw refuse("invalid key: not UTF-8")
                    }
                    key = LuaCodingKey(stringValue: name)
                } else {
                    throw refuse("invalid key: a \(stack.type(at: -2).name) key (keys are strings or integers)")
                }
                let text = key.intValue.map { String($0 + 1) } ?? key.stringValue
                guard seen.insert(text).inserted else {
                    throw DecodingError.dataCorrupted(.init(codingPath: path + [key],
                        debugDescription: "invalid key: two keys of the table read as \"\(text)\" (such as [1] and [\"1\"], or one text in two Unicode forms)"))
                }
                try checkPlainData(at: stack.top, path: path + [key], stack: stack, limit: limit, open: &open, left: &left)
            }
        case let other:
            throw refuse("invalid value: a \(other.name) cannot be sent in a payload")
        }
    }
}
