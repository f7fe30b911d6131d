/// Why a ``TableDiff`` could not be applied: it was computed from a different model, or edited into an
/// inconsistent one.
public struct TableDiffError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What did not fit, e.g. `row insert at 2.7 is past the end of section 2 (5 rows)`.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
