import Foundation

/// One line of an action log (JSON Lines): an action's name and payload, when it ran, and the undo
/// group it belonged to — or an undo or redo step.
///
/// ```json
/// {"name":"ticTacToe.placeToken","payload":{"index":4},"time":1795000000.5,"group":3,"label":"Place token"}
/// {"name":"flux.undo","time":1795000001.2}
/// ```
public struct ActionLogEntry {
    /// The name a log gives an undo step.
    public static let undoName = "flux.undo"
    /// The name a log gives a redo step.
    public static let redoName = "flux.redo"

    /// The action's name, or ``undoName`` / ``redoName``.
    public var name: String
    /// The action as dispatched (nil for undo and redo).
    public var action: (any Action)?
    /// Seconds since 1970 when it ran.
    public var time: Double
    /// The undo group the action ran in, with its label.
    public var group: (id: Int, label: String)?

    /// An entry for a dispatched action.
    public init(action: any Action, time: Double, group: (id: Int, label: String)? = nil) {
        self.name = action.name
        self.action = action
        self.time = time
        self.group = group
    }

    /// An entry for an undo or redo step.
    public init(step: HistoryStep, time: Double) {
        self.name = step == .undo ? Self.undoName : Self.redoName
        self.action = nil
        self.time = time
    }

    /// The entry as one line of JSON, without the newline.
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(EncodedLine(entry: self)), as: UTF8.self)
    }

    /// Parses one line, building its action through `registry`.
    ///
    /// - Throws: ``ActionError`` for an unknown action or a payload that does not decode, or a
    ///   `DecodingError` for a line that is not an entry.
    public static func parse(_ line: String, registry: ActionRegistry) throws -> ActionLogEntry {
        let header = try JSONDecoder().decode(Header.self, from: Data(line.utf8))
        let group = header.group.map { (id: $0, label: header.label ?? "group \($0)") }
        switch header.name {
        case undoName, redoName:
            var entry = ActionLogEntry(step: header.name == undoName ? .undo : .redo, time: header.time ?? 0)
            entry.group = group
            return entry
        default:
            let action = try registry.decode(header.name, json: payloadJSON(in: line))
            return ActionLogEntry(action: action, time: header.time ?? 0, group: group)
        }
    }

    /// The raw JSON of the line's `payload` member, re-serialised (nil when absent).
    private static func payloadJSON(in line: String) throws -> Data? {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
        guard let members = object as? [String: Any], let payload = members["payload"], !(payload is NSNull) else {
            return nil
        }
        return try JSONSerialization.data(withJSONObject: payload, options: [.fragmentsAllowed])
    }

    private struct Header: Decodable {
        let name: String
        let time: Double?
        let group: Int?
        let label: String?
    }

    private struct EncodedLine: Encodable {
        let entry: ActionLogEntry

        enum Key: String, CodingKey { case name, payload, time, group, label }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(entry.name, forKey: .name)
            if let action = entry.action { try container.encode(action, forKey: .payload) }
            try container.encode(entry.time, forKey: .time)
            if let group = entry.group {
                try container.encode(group.id, forKey: .group)
                try container.encode(group.label, forKey: .label)
            }
        }
    }
}
