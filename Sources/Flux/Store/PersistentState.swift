import Foundation

/// A target whose states can be written as text and read back: what a session keeps across restarts —
/// the state now, and the states its undo steps hold.
///
/// ``Store`` conforms when its `State` is also `Decodable` (as JSON); a scripting layer conforms its
/// stores with an encoding that keeps what JSON would lose.
package protocol PersistentState: TransactionalTarget {
    /// The name of the encoding, saved with the text: text in another encoding is not read as this one.
    var stateFormat: String { get }
    /// A state taken by ``TransactionalTarget/snapshot()`` or ``TransactionalTarget/commit()``, as text.
    func encodeState(_ snapshot: Any) throws -> String
    /// A state written by ``encodeState(_:)``, to give to ``TransactionalTarget/restore(_:)``.
    ///
    /// - Throws: when the text does not decode (the state's shape changed since it was written).
    func decodeState(_ text: String) throws -> Any
    /// Whether text saved as `format` is read as this store's states (by default: the same format).
    func reads(format: String) -> Bool
    /// A state saved as `format` (one ``reads(format:)`` accepts), converted when the store's state has
    /// changed shape since, with a line saying what the conversion did (nil: read as it was).
    ///
    /// - Throws: when the text does not decode or cannot be converted.
    func decodeState(_ text: String, savedAs format: String) throws -> (state: Any, converted: String?)
}

extension PersistentState {
    package func reads(format: String) -> Bool { format == stateFormat }

    package func decodeState(_ text: String, savedAs format: String) throws -> (state: Any, converted: String?) {
        (try decodeState(text), nil)
    }
}

extension Store: PersistentState where State: Decodable {
    package var stateFormat: String { "json" }

    package func encodeState(_ snapshot: Any) throws -> String {
        guard let state = snapshot as? State else {
            throw EncodingError.invalidValue(snapshot, .init(codingPath: [], debugDescription: "not a state of store '\(name)'"))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(state), as: UTF8.self)
    }

    package func decodeState(_ text: String) throws -> Any {
        try validated(JSONDecoder().decode(State.self, from: Data(text.utf8)))
    }
}
