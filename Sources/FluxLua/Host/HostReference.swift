/// The host as what may outlive it reaches it: the `flux` module's functions, the VM's warnings, the
/// dispatcher's follow-up errors, view providers and subscriptions. Not a weak reference: one would give the
/// host a side table, which makes every retain and release of it (one each `flux.dispatch`) take the slow
/// path. The host clears it first thing as it goes (deinit), so it reads nil from then on, as a weak
/// reference would.
final class HostReference {
    /// The host; nil once it is going.
    @exclusivity(unchecked) unowned(unsafe) var host: FluxHost?

    init() {}
}
