import Flux
import Foundation

/// An undo or redo step as a session saves it: its label, and each store's state to go back to, in
/// that store's encoding.
struct SavedStep: Codable {
    typealias Change = EncodedState

    let label: String
    let changes: [Change]
    /// What `:history` shows of the step (its actions and stores), when the shell told it.
    let record: StepRecord?

    /// The step's states encoded by their stores; `encoded` gives a state's text already encoded
    /// (the store's state as last saved), if it has it.
    ///
    /// - Throws: when a store cannot save its states (it is not a ``PersistentState``, or a state
    ///   does not encode).
    init(_ entry: HistoryEntry, record: StepRecord? = nil, encoded: (any DispatchTarget, Any) -> String? = { _, _ in nil }) throws {
        label = entry.label
        self.record = record
        changes = try entry.changes.map { change in
            guard let store = change.target as? any PersistentState else {
                throw SessionError("store '\(change.target.name)' cannot save its states")
            }
            return Change(store: store.name, format: store.stateFormat,
                          state: try encoded(change.target, change.snapshot) ?? (change.snapshot as? DeferredSavedState)?.stored
                              ?? store.encodeState(change.snapshot))
        }
    }

    /// The step rebuilt over `dispatcher`'s stores; a state `deferring` gives a ``DeferredState`` for
    /// (by its store and text) is decoded only when the step is taken.
    ///
    /// - Throws: when a store is missing, saved in another format, or its state no longer decodes.
    func entry(in dispatcher: Dispatcher, deferring: (any PersistentState, String) -> (any DeferredState)? = { _, _ in nil }) throws -> HistoryEntry {
        HistoryEntry(label: label, changes: try changes.map { change in
            guard let store = dispatcher.store(named: change.store) as? any PersistentState else {
                throw SessionError("step '\(label)' changes store '\(change.store)', which is not there now")
            }
            guard store.reads(format: change.format) else {
                throw SessionError("step '\(label)': store '\(change.store)' was saved as \(change.format), now is \(store.stateFormat)")
            }
            if let deferred = deferring(store, change.state) { return (store, deferred) }
            return (store, try store.decodeState(change.state))
        })
    }

    /// The step with each state's text as `store` gives it (`store(text, storeName)`): in pieces, for
    /// a large one (see ``SessionChunks``), or back from them.
    func storing(_ store: (String, String) throws -> String) rethrows -> SavedStep {
        SavedStep(label: label, changes: try changes.map { Change(store: $0.store, format: $0.format, state: try store($0.state, $0.store)) },
                  record: record)
    }

    private init(label: String, changes: [Change], record: StepRecord?) {
        self.label = label
        self.changes = changes
        self.record = record
    }

    /// The step as JSON, written by hand (a line of many actions saves many steps; ``decode(_:)`` reads
    /// it as `Codable` would have written it).
    var json: String {
        var text = #"{"label":"# + JSONText.quote(label) + #","changes":["#
        for (index, change) in changes.enumerated() {
            if index > 0 { text += "," }
            text += #"{"store":"# + JSONText.quote(change.store)
            text += #","format":"# + JSONText.quote(change.format)
            text += #","state":"# + JSONText.quote(change.state) + "}"
        }
        text += "]"
        if let record {
            text += #","record":{"actions":["# + record.actions.map(JSONText.quote).joined(separator: ",")
            text += #"],"count":\#(record.count),"stores":["# + record.stores.map(JSONText.quote).joined(separator: ",")
            text += #"],"isGroup":\#(record.isGroup)}"#
        }
        return text + "}"
    }

    static func decode(_ json: String) throws -> SavedStep {
        try JSONDecoder().decode(SavedStep.self, from: Data(json.utf8))
    }
}

/// What `:history` shows of an undo step beyond its label: the actions it holds (its first ones, as
/// action-log lines), how many, and the stores it changed. Saved with the step, so that a restored
/// history lists its payloads as the one it was saved from did.
public struct StepRecord: Codable, Equatable {
    /// The step's first actions, each an action-log line.
    public var actions: [String]
    /// How many actions the step holds.
    public var count: Int
    /// The stores it changed.
    public var stores: [String]
    /// Whether it is a group's step.
    public var isGroup: Bool

    public init(actions: [String], count: Int, stores: [String], isGroup: Bool) {
        self.actions = actions
        self.count = count
        self.stores = stores
        self.isGroup = isGroup
    }
}

/// Why a session could not do something, in words for the user.
public struct SessionError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
