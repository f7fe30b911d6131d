import Flux
import Foundation

/// An undo or redo step as a session saves it: its label, and each store's state to go back to, in
/// that store's encoding.
struct SavedStep: Codable {
    typealias Change = EncodedState

    let label: String
    let changes: [Change]

    /// The step's states encoded by their stores.
    ///
    /// - Throws: when a store cannot save its states (it is not a ``PersistentState``, or a state
    ///   does not encode).
    init(_ entry: HistoryEntry) throws {
        label = entry.label
        changes = try entry.changes.map { change in
            guard let store = change.target as? any PersistentState else {
                throw SessionError("store '\(change.target.name)' cannot save its states")
            }
            return Change(store: store.name, format: store.stateFormat, state: try store.encodeState(change.snapshot))
        }
    }

    /// The step rebuilt over `dispatcher`'s stores.
    ///
    /// - Throws: when a store is missing, saved in another format, or its state no longer decodes.
    func entry(in dispatcher: Dispatcher) throws -> HistoryEntry {
        HistoryEntry(label: label, changes: try changes.map { change in
            guard let store = dispatcher.store(named: change.store) as? any PersistentState else {
                throw SessionError("step '\(label)' changes store '\(change.store)', which is not there now")
            }
            guard store.reads(format: change.format) else {
                throw SessionError("step '\(label)': store '\(change.store)' was saved as \(change.format), now is \(store.stateFormat)")
            }
            return (store, try store.decodeState(change.state))
        })
    }

    var json: String {
        get throws { String(decoding: try JSONEncoder().encode(self), as: UTF8.self) }
    }

    static func decode(_ json: String) throws -> SavedStep {
        try JSONDecoder().decode(SavedStep.self, from: Data(json.utf8))
    }
}

/// Why a session could not do something, in words for the user.
public struct SessionError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
