/// An action that writes its own payload as JSON, keeping what `JSONEncoder` loses: a script's float
/// that holds a whole number is written `2.0`, not `2`, so that a replay gives the script a float again.
public protocol ExactJSONPayload: Action {
    /// The payload as one JSON value (no newline).
    func payloadJSON() throws -> String
    /// Appends the payload as ``payloadJSON()`` writes it, in UTF-8, to `bytes` (a journal writes many
    /// into one buffer).
    func writePayloadJSON(into bytes: inout [UInt8]) throws
}

extension ExactJSONPayload {
    public func writePayloadJSON(into bytes: inout [UInt8]) throws {
        bytes.append(contentsOf: try payloadJSON().utf8)
    }
}
