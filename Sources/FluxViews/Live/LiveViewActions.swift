import FluxTable

/// What a live view needs from the application around it: dispatching an action by name, the undo
/// history, and whether a view can still be shown.
///
/// The scripting host implements it, so `:open`, `fluxsh open` and `flux.pilot` dispatch exactly as
/// `:dispatch` does.
public protocol LiveViewActions: AnyObject {
    /// Dispatches the action called `name` with `payload`.
    ///
    /// - Throws: when the name is unknown, the payload refused, or the dispatch failed (every store as it
    ///   was).
    func dispatch(action name: String, payload: CellPayload?) throws
    /// Undoes the last step; its label, or nil when there was nothing to undo.
    func undo() throws -> String?
    /// Redoes the step last undone; its label, or nil when there was nothing to redo.
    func redo() throws -> String?
    /// The view called `name` as it is registered now, or nil once it or its store is gone.
    func view(named name: String) -> ViewProvider?
    /// Every view's name, for an error naming an unknown one.
    var viewNames: [String] { get }
    /// An error as the status line shows it.
    func describe(_ error: any Error) -> String
}

extension LiveViewActions {
    public func describe(_ error: any Error) -> String { String(describing: error) }
}
