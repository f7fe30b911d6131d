import Foundation

/// Maps action names to the code that builds the action from a payload.
///
/// Stores register the action types they handle (``Store/on(_:_:)`` does it for them), so every name a
/// store answers to can be dispatched from a log, the shell or a script. A payload arrives through any
/// `Decoder` (JSON lines, a Lua table); a decoding failure becomes an ``ActionError`` naming the action
/// and the field.
///
/// ```swift
/// var registry = ActionRegistry()
/// try registry.register(ToggleFilter.self)
/// let action = try registry.decode("annotationFilter.toggleFilter", json: #"{"filter":"hideAll"}"#)
/// ```
public struct ActionRegistry {
    /// Builds an action from a decoder positioned at its payload.
    public typealias Decode = (any Decoder) throws -> any Action

    private var decoders: [String: Decode] = [:]
    /// The Swift type behind each name registered by type; a name registered with a decode closure has none.
    private var types: [String: any Action.Type] = [:]

    /// An empty registry.
    public init() {}

    /// Registers an action type under its ``Action/name``; registering the same type again changes nothing.
    ///
    /// - Throws: ``ActionError/conflictingTypes(action:registered:new:)`` when another type already has
    ///   the name: one would silently decode as the other.
    public mutating func register<A: Action>(_ type: A.Type) throws(ActionError) {
        if let registered = types[A.name] {
            guard registered == A.self else {
                throw .conflictingTypes(action: A.name, registered: String(reflecting: registered), new: String(reflecting: A.self))
            }
            return
        }
        decoders[A.name] = { try A(from: $0) }
        types[A.name] = A.self
    }

    /// Registers a name whose actions are built by `decode` (for actions defined at run time).
    public mutating func register(name: String, decode: @escaping Decode) {
        decoders[name] = decode
        types[name] = nil
    }

    /// Removes a name.
    public mutating func unregister(name: String) {
        decoders[name] = nil
        types[name] = nil
    }

    /// Whether `name` is registered.
    public func contains(_ name: String) -> Bool { decoders[name] != nil }

    /// Every registered name, sorted.
    public var names: [String] { decoders.keys.sorted() }

    /// The action named `name`, decoded from `decoder`.
    ///
    /// - Throws: ``ActionError/unknownAction(_:)`` or ``ActionError/invalidPayload(action:message:)``.
    public func decode(_ name: String, from decoder: any Decoder) throws(ActionError) -> any Action {
        guard let decode = decoders[name] else { throw .unknownAction(name, among: decoders.keys) }
        do {
            return try decode(decoder)
        } catch let error as ActionError {
            throw error
        } catch let error as DecodingError {
            throw .invalidPayload(action: name, message: error.fieldMessage)
        } catch {
            throw .invalidPayload(action: name, message: Self.describeJSONError(error))
        }
    }

    /// The action named `name`, decoded from a JSON payload (`nil` or empty: an empty object).
    public func decode(_ name: String, json: Data?) throws(ActionError) -> any Action {
        guard contains(name) else { throw .unknownAction(name, among: decoders.keys) }
        let data = (json?.isEmpty ?? true) ? Data("{}".utf8) : json!
        let decoder = JSONDecoder()
        decoder.userInfo = DecodedAction.userInfo(registry: self, name: name)
        do {
            return try decoder.decode(DecodedAction.self, from: data).action
        } catch let error as ActionError {
            throw error
        } catch let error as DecodingError {
            throw .invalidPayload(action: name, message: error.fieldMessage)
        } catch {
            throw .invalidPayload(action: name, message: Self.describeJSONError(error))
        }
    }

    /// The words for an error that is not a `DecodingError`. `JSONDecoder` reports a number that the
    /// field's type cannot hold (`1e30`, or `1.5` for an integer) as an internal enum case.
    static func describeJSONError(_ error: any Error) -> String {
        let mirror = Mirror(reflecting: error)
        if mirror.displayStyle == .enum, let payload = mirror.children.first,
           payload.label == "numberIsNotRepresentableInSwift" {
            let parsed = Mirror(reflecting: payload.value).children.first?.value ?? payload.value
            return "number \(parsed) does not fit: an integer field needs a whole number in range"
        }
        return String(describing: error)
    }

    /// The action named `name`, decoded from JSON text.
    public func decode(_ name: String, json: String) throws(ActionError) -> any Action {
        try decode(name, json: Data(json.utf8))
    }
}

/// Carries the registry into a `Decoder` that hands out its `Decoder` only inside `init(from:)`.
struct RegistryReference: @unchecked Sendable {
    // Read synchronously inside the one decode call that set it.
    let registry: ActionRegistry
    let name: String
}

/// Decodes the action a registry builds for a name, from whatever decoder is at hand (JSON, a Lua
/// table): give the decoder ``userInfo(registry:name:)`` and decode this type.
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.userInfo = DecodedAction.userInfo(registry: registry, name: "todos.add")
/// let action = try decoder.decode(DecodedAction.self, from: data).action
/// ```
public struct DecodedAction: Decodable {
    static let registryKey = CodingUserInfoKey(rawValue: "flux.registry")!

    /// The decoded action.
    public let action: any Action

    /// The user info that makes a decoder build the action `name` through `registry`.
    public static func userInfo(registry: ActionRegistry, name: String) -> [CodingUserInfoKey: any Sendable] {
        [registryKey: RegistryReference(registry: registry, name: name)]
    }

    public init(from decoder: any Decoder) throws {
        guard let reference = decoder.userInfo[Self.registryKey] as? RegistryReference else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "invalid payload: no registry"))
        }
        action = try reference.registry.decode(reference.name, from: decoder)
    }
}
