import Foundation

/// One finding of `:health`: ok, a warning or an error, with advice for the last two.
public struct HealthCheck: Equatable, Sendable {
    public enum Status: String, Sendable, CaseIterable {
        case ok, warning, error
    }

    public var status: Status
    /// What was found: `Lua 5.4`, `the session database is not writable`.
    public var message: String
    /// What to do about it.
    public var advice: String?

    public init(_ status: Status, _ message: String, advice: String? = nil) {
        self.status = status
        self.message = message
        self.advice = advice
    }
}

extension FluxHost {
    /// A plugin's health: its load error, if any, then what the function its manifest's `health` names
    /// in its API reports. That function is called with no arguments, within a budget, and returns a
    /// list of `{status = "ok"|"warning"|"error", message = "…", advice = "…"}` (or one such table, or
    /// nothing for all is well).
    public func checkHealth(of plugin: Plugin) -> [HealthCheck] {
        if let error = pluginErrors[plugin.name] {
            return [HealthCheck(.error, "failed to load: " + (error.split(separator: "\n").first.map(String.init) ?? ""),
                                advice: "fix it and :reload \(plugin.name)")]
        }
        guard let name = plugin.manifest?.health else { return [] }
        guard let api = pluginExtras.exports[plugin.name] else {
            return [HealthCheck(.error, "its manifest names health = \"\(name)\", but its init.lua returns no table",
                                advice: "end init.lua with return {\(name) = function() … end}")]
        }
        let outer = vm.instructionBudget
        if outer == nil { vm.instructionBudget = Self.callbackBudget }
        defer { if outer == nil { vm.instructionBudget = nil } }
        do {
            let lookup = try vm.load("local api, name = ... if type(api) ~= 'table' then return nil end return rawget(api, name)", chunkName: "=health")
            let found = try vm.call(lookup, results: 1, arguments: { lua in
                lua.push(api)
                lua.push(name)
            }) { lua, results in lua.type(at: results.lowerBound) == .function ? lua.ref(at: results.lowerBound) : nil }
            guard let function = found else {
                return [HealthCheck(.error, "its manifest names health = \"\(name)\", but its API has no function \(name)",
                                    advice: "add \(name) = function() … end to the table init.lua returns")]
            }
            let value = try vm.call(function, results: 1, arguments: { _ in }) { lua, results in lua.value(at: results.lowerBound) }
            return try Self.healthChecks(from: value, of: plugin.name)
        } catch {
            return [HealthCheck(.error, "\(name)() failed: " + (Self.describe(error).split(separator: "\n").first.map(String.init) ?? ""),
                                advice: "see the traceback with :lua require(\"\(plugin.name)\").\(name)()")]
        }
    }

    /// The checks a health function returned.
    private static func healthChecks(from value: LuaValue, of plugin: String) throws -> [HealthCheck] {
        switch value {
        case .nil, .boolean(true): return [HealthCheck(.ok, "healthy")]
        case .array(let entries): return try entries.map { try healthCheck(from: $0, of: plugin) }
        case .table(let fields) where fields[.string("status")] != nil: return [try healthCheck(from: value, of: plugin)]
        default:
            throw FluxScriptError("it returned a \(value.kindName): a health function returns a list of {status = \"ok\", message = \"…\"}")
        }
    }

    private static func healthCheck(from value: LuaValue, of plugin: String) throws -> HealthCheck {
        guard case let .table(fields) = value, case let .string(status)? = fields[.string("status")],
              let kind = HealthCheck.Status(rawValue: status == "warn" ? "warning" : status) else {
            throw FluxScriptError("each check is a table {status = \"ok\"|\"warning\"|\"error\", message = \"…\", advice = \"…\"}")
        }
        var message = "", advice: String?
        if case let .string(text)? = fields[.string("message")] { message = text }
        if case let .string(text)? = fields[.string("advice")] { advice = text }
        return HealthCheck(kind, message, advice: advice)
    }
}
