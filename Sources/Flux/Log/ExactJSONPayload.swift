/// An action that writes its own payload as JSON, keeping what `JSONEncoder` loses: a script's float
/// that holds a whole number is written `2.0`, not `2`, so that a replay gives the script a float again.
///
/// Its ``Action/writePayloadJSON(into:)`` writes what ``payloadJSON()`` returns; a type may write the
/// same bytes faster itself (a journal writes many payloads into one buffer).
public protocol ExactJSONPayload: Action {
    /// The payload as one JSON value (no newline).
    func payloadJSON() throws -> String
}

extension ExactJSONPayload {
    public func writePayloadJSON(into bytes: inout [UInt8]) throws {
        bytes.append(contentsOf: try payloadJSON().utf8)
    }
}
