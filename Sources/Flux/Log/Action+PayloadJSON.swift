import Foundation

extension Action {
    /// `JSONEncoder`'s text, with sorted keys; an ``ExactJSONPayload`` action's own text when its
    /// conformance is declared where this default was chosen for it (in another module).
    public func writePayloadJSON(into bytes: inout [UInt8]) throws {
        if let exact = self as? any ExactJSONPayload {
            bytes.append(contentsOf: try exact.payloadJSON().utf8)
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        bytes.append(contentsOf: try encoder.encode(self))
    }
}
