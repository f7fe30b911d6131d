/// What an effect is.
public enum EffectKind: String, Sendable {
    /// A timer that fires once (`flux.after`).
    case after
    /// A timer that fires again and again (`flux.every`).
    case every
    /// A running process (`flux.spawn`).
    case process
    /// A watched file or folder (`flux.watch_path`).
    case watch
    /// A listener to committed actions (`flux.on`): live, but it does not keep a batch run going (only
    /// another effect could set it off).
    case listener
}
