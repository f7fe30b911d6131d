/// The host as what may outlive it reaches it: the `flux` module's functions, the VM's warnings, the
/// dispatcher's follow-up errors, view providers and subscriptions.
///
/// Unsafe idioms confined here (ARCHITECTURE.md, "Where unsafe code lives"). Not a weak reference: one
/// would give the host a side table, which makes every retain and release of it (one each
/// `flux.dispatch`) take the slow path. Invariant: the host clears it first thing as it goes (deinit),
/// so it reads nil from then on, as a weak reference would, and whoever reads a host gets it retained.
/// Broken, `LuaTortureSpec` (a host dropped while its VM's finalizers and subscriptions still run) and
/// the bad-input corpus under `FLUX_GC_TORTURE=1` (`scripts/torture`) fail.
final class HostReference {
    /// The host; nil once it is going.
    var host: FluxHost? {
        get { unretained?.takeUnretainedValue() }
        set { unretained = newValue.map(Unmanaged.passUnretained) }
    }

    private var unretained: Unmanaged<FluxHost>?

    /// The host, for a `flux` function or metamethod a script calls: ``FluxHostError/closed`` once it is
    /// gone.
    func require() throws -> FluxHost {
        guard let host else { throw FluxHostError.closed }
        return host
    }

    init() {}
}
