/// Who started an effect: a plugin, the interactive session (the prompt, a script), or a Swift feature.
/// Ending an owner (`:unload`, a plugin's successful `:reload`, quitting) ends every effect it owns.
public struct EffectOwner: Hashable, Sendable, CustomStringConvertible {
    /// How listings and errors name the owner: `plugin pomodoro`, `session`, `swift issues`.
    public let description: String

    /// An owner called `description`.
    public init(_ description: String) {
        self.description = description
    }

    /// The prompt and the scripts run at it.
    public static let session = EffectOwner("session")
}
