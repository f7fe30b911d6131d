import Foundation

/// Writes one line per dispatched action: its name, its payload as JSON, and the stores it changed.
///
/// ```swift
/// dispatcher.middleware.append(LoggingMiddleware { print($0) })
/// // → ticTacToe.placeToken {"index":4} changed ticTacToe
/// ```
public final class LoggingMiddleware: Middleware {
    private let write: (String) -> Void
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A logger handing each line to `write`.
    public init(write: @escaping (String) -> Void) {
        self.write = write
    }

    public func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
        let stores = changed.isEmpty ? "no change" : "changed " + changed.joined(separator: ", ")
        write("→ \(action.name) \(payload(action)) \(stores)")
    }

    public func didFail(_ action: any Action, error: any Error, in dispatcher: Dispatcher) {
        write("✗ \(action.name) \(payload(action)) \(DispatcherError.describe(error))")
    }

    public func didTravel(_ step: HistoryStep, label: String, in dispatcher: Dispatcher) {
        write("↺ \(step.rawValue) \(label)")
    }

    private func payload(_ action: any Action) -> String {
        guard let data = try? encoder.encode(action) else { return "{…}" }
        return String(decoding: data, as: UTF8.self)
    }
}
