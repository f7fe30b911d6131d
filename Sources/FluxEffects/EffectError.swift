/// Why an effect could not start, or an operation on one failed; the message says what to do instead.
public struct EffectError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
