import Flux

extension FluxHost {
    /// The fields the action called `name` takes: as a script declared them, else as a Swift action's
    /// `Decodable` conformance reads them; nil for a script's action that declares none.
    public func payloadFields(of name: String) -> PayloadFields? {
        payloadDeclaration(of: name)?.payloadFields ?? PayloadFields(deriving: name, registry: dispatcher.registry)
    }
}
