import Foundation

/// What a plugin folder's `manifest.lua` declares: its name and version, the plugins it requires (with
/// version constraints), its options with their defaults, and the function of its API that checks its
/// health.
///
/// ```lua
/// -- plugins/z_stats/manifest.lua
/// return {
///   name = "z_stats", version = "1.2.0",
///   requires = {"z_base >= 2.0"},
///   options = {window = 10, label = "stats"},
///   health = "check",
/// }
/// ```
///
/// A manifest is data: it is run in a Lua state of its own with an empty environment (no globals, so it
/// can call nothing), under a small instruction and memory budget, and what it returns may hold no
/// function. It is read before anything of the plugin runs, so the host can order plugins and refuse one
/// whose dependencies are missing without running it.
public struct PluginManifest: Equatable, Sendable {
    /// The plugin's name: what `requires`, `require`, `:unload` and `flux.options` use.
    public var name: String
    /// Its version, if it gives one.
    public var version: PluginVersion?
    /// The plugins it needs, loaded before it.
    public var requires: [PluginRequirement]
    /// Its options and their defaults: `flux.configure` may set only these keys, to values of the same type.
    public var options: [String: LuaValue]
    /// The field of the plugin's API (what `init.lua` returns) that `:health` calls, if any.
    public var health: String?
    /// One line on what it does, if given.
    public var description: String?

    /// The most bytes a manifest file may hold.
    static let maximumSize = 64 << 10
    /// The most Lua instructions a manifest may run.
    static let instructionBudget = 100_000
    /// The most memory the state reading a manifest may hold.
    static let memoryLimit = 8 << 20

    /// The fields a manifest may have.
    static let fields: Set = ["name", "version", "requires", "options", "health", "description"]

    /// The manifest of the plugin folder `folder`, or nil when it has none.
    ///
    /// - Parameter defaultName: The name when the manifest gives none: the folder's.
    /// - Throws: ``PluginManifestError`` naming the file and what is wrong.
    static func read(folder: String, defaultName: String) throws(PluginManifestError) -> PluginManifest? {
        let path = (folder as NSString).appendingPathComponent("manifest.lua")
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw PluginManifestError("\(path): cannot read it") }
        guard data.count <= maximumSize else {
            throw PluginManifestError("\(path): \(data.count) bytes, more than a manifest may hold (\(maximumSize))")
        }
        guard !data.contains(0), let source = String(data: data, encoding: .utf8) else {
            throw PluginManifestError("\(path): not a text file")
        }
        let value: LuaValue
        do {
            value = try evaluate(source, chunkName: "@" + path)
        } catch let error as LuaError {
            var message = error.message
            if message.contains("attempt to call") || message.contains("attempt to index") {
                message += " (a manifest is data: it runs with no globals and may call nothing)"
            }
            throw PluginManifestError(message)
        } catch {
            throw PluginManifestError("\(path): \(error)")
        }
        do {
            return try PluginManifest(value, defaultName: defaultName)
        } catch {
            throw PluginManifestError("\(path): \(error.message)")
        }
    }

    /// Runs a manifest's source in a state of its own, with an empty environment and a budget: its result.
    private static func evaluate(_ source: String, chunkName: String) throws -> LuaValue {
        let vm = LuaVM(memoryLimit: memoryLimit)
        vm.instructionBudget = instructionBudget
        let reader = try vm.load("""
            local source, chunkname = ...
            local chunk, message = load(source, chunkname, "t", {})
            if not chunk then error(message, 0) end
            return (chunk())
            """, chunkName: "=manifest reader")
        return try vm.call(reader, source, chunkName).first ?? .nil
    }

    /// The manifest `value` (what the file returned) describes.
    init(_ value: LuaValue, defaultName: String) throws(PluginManifestError) {
        guard case let .table(fields) = value.asTable else {
            throw PluginManifestError("a manifest must return a table such as {name = \"\(defaultName)\", version = \"1.0\"}, got \(value.kindName)")
        }
        var byName: [String: LuaValue] = [:]
        for (key, field) in fields {
            guard case let .string(key) = key else { throw PluginManifestError("a manifest's fields have names; found the key \(key)") }
            guard Self.fields.contains(key) else {
                throw PluginManifestError("unknown field '\(key)' (a manifest has \(Self.fields.sorted().joined(separator: ", ")))")
            }
            try field.refuseFunctions(at: key)
            byName[key] = field
        }
        switch byName["name"] {
        case nil: name = defaultName
        case let .string(text)?:
            guard !text.isEmpty, !text.contains(where: { $0.isWhitespace || "<>=~,".contains($0) }) else {
                throw PluginManifestError("field 'name': '\(text)' is not a plugin name (no blanks, no < > = ~ ,)")
            }
            name = Name.normalized(text)
        case let other?: throw PluginManifestError("field 'name' must be a string, got \(other.kindName)")
        }
        switch byName["version"] {
        case nil: version = nil
        case let .string(text)?:
            guard let parsed = PluginVersion(text) else {
                throw PluginManifestError("field 'version': '\(text)' is not a version (numbers separated by dots, such as 2.0 or 1.4.2)")
            }
            version = parsed
        case let other?: throw PluginManifestError("field 'version' must be a string such as \"1.0\", got \(other.kindName)")
        }
        var requires: [PluginRequirement] = []
        switch byName["requires"]?.asTable {
        case nil: break
        case let .array(entries)?:
            for (index, entry) in entries.enumerated() {
                guard case let .string(text) = entry else {
                    throw PluginManifestError("requires[\(index + 1)] must be a string such as \"z_base >= 2.0\", got \(entry.kindName)")
                }
                requires.append(try PluginRequirement(parsing: text))
            }
        case .table([:])?: break
        case let other?: throw PluginManifestError("field 'requires' must be a list of strings such as {\"z_base >= 2.0\"}, got \(other.kindName)")
        }
        self.requires = requires
        switch byName["options"]?.asTable {
        case nil, .table([:])?: options = [:]
        case let .table(entries)?:
            var options: [String: LuaValue] = [:]
            for (key, value) in entries {
                guard case let .string(key) = key else { throw PluginManifestError("field 'options' must map names to defaults; found the key \(key)") }
                options[key] = value
            }
            self.options = options
        case let other?: throw PluginManifestError("field 'options' must be a table of names and defaults, got \(other.kindName)")
        }
        switch byName["health"] {
        case nil: health = nil
        case let .string(text)?: health = text
        case let other?: throw PluginManifestError("field 'health' must name a function of the plugin's API (a string), got \(other.kindName)")
        }
        switch byName["description"] {
        case nil: description = nil
        case let .string(text)?: description = text
        case let other?: throw PluginManifestError("field 'description' must be a string, got \(other.kindName)")
        }
    }
}

/// A manifest that cannot be read, or that declares something the host refuses.
public struct PluginManifestError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension LuaValue {
    /// An empty array is an empty table.
    var asTable: LuaValue {
        if case let .array(elements) = self, elements.isEmpty { return .table([:]) }
        return self
    }

    /// The type's name as Lua's `type` gives it (a function held as `.opaque`, `function`).
    var kindName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array, .table: "table"
        case let .opaque(text): String(text.prefix { $0 != ":" })
        }
    }

    /// Refuses a function (or any value that is not data) anywhere inside, naming where.
    func refuseFunctions(at path: String) throws(PluginManifestError) {
        switch self {
        case let .opaque(text):
            if text.hasPrefix("table") {
                throw PluginManifestError("\(path): a table nested too deep, too large or holding itself")
            }
            throw PluginManifestError("\(path) is a \(kindName): a manifest holds data only (strings, numbers, booleans, tables)")
        case let .array(elements):
            for (index, element) in elements.enumerated() { try element.refuseFunctions(at: "\(path)[\(index + 1)]") }
        case let .table(fields):
            for (key, field) in fields { try field.refuseFunctions(at: "\(path).\(key)") }
        default: break
        }
    }
}
