import FluxEffects
import FluxLua

extension Shell {
    /// How waiting for effects ended.
    public enum EffectsWait: Equatable {
        /// No effect is left.
        case done
        /// The time given ran out; the effects left were ended.
        case timedOut
        /// Ctrl-C; the effects left were ended.
        case interrupted
    }

    /// Runs the event loop while an effect is live (`fluxsh run`, as Node does), then ends what is left.
    ///
    /// - Parameter timeout: Seconds to wait at most; nil for as long as effects are live.
    public func waitForEffects(timeout: Double? = nil) -> EffectsWait {
        let effects = host.effects
        host.runListeners()
        guard effects.isBusy else { return .done }
        let catching = !SignalInterrupts.isInstalled
        if catching { SignalInterrupts.install(interrupt: { LuaVM.interruptAll() }) }
        defer { if catching { SignalInterrupts.uninstall() } }
        _ = SignalInterrupts.takeInterrupt()
        var interrupted = false
        let commits = CommitCounter(host.dispatcher)
        effects.didRunCallback = { [weak self] in if commits.takeChanged() { self?.acknowledgeEffect() } }
        defer { effects.didRunCallback = nil }
        let done = SignalInterrupts.waking(effects.loop) {
            effects.runUntilIdle(timeout: timeout.map { $0 * 1000 }) {
                if SignalInterrupts.takeInterrupt() { interrupted = true }
                return interrupted
            }
        }
        effects.endAll()
        acknowledge()
        return done ? .done : interrupted ? .interrupted : .timedOut
    }
}
