/// The host as what may outlive it reaches it: the `flux` module's functions, the VM's warnings, the
/// dispatcher's follow-up errors, view providers and subscriptions. Not a weak reference: one would give the
/// host a side table, which makes every retain and release of it (one each `flux.dispatch`) take the slow
/// path. The host clears it first thing as it goes (deinit), so it reads nil from then on, as a weak
/// reference would.
final class HostReference {
    /// The host; nil once it is going.
    var host: FluxHost? {
        get { unretained?.takeUnretainedValue() }
        set { unretained = newValue.map(Unmanaged.passUnretained) }
    }

    /// The host without a retain, for a caller that only borrows it while its caller holds it (a Lua
    /// store's handler call).
    @exclusivity(unchecked) private(set) var unretained: Unmanaged<FluxHost>?

    /// The host, for a `flux` function or metamethod a script calls: ``FluxHostError/closed`` once it is
    /// gone.
    func require() throws -> FluxHost {
        guard let host else { throw FluxHostError.closed }
        return host
    }

    init() {}
}
