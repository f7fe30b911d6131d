import Foundation

/// A plugin's version as its manifest gives it: one to four whole numbers separated by dots (`2`,
/// `2.1`, `2.1.3`), compared number by number, a missing number counting as 0 (`2.0` is `2`).
public struct PluginVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The numbers, as written.
    public let parts: [Int]

    /// The version `text` spells, or nil when it is not one (`2.x`, `1..2`, `v2`, empty).
    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.count <= 9, piece.allSatisfy(\.isASCII), let number = Int(piece), number >= 0 else { return nil }
            parts.append(number)
        }
        self.parts = parts
    }

    init(parts: [Int]) { self.parts = parts }

    public var description: String { parts.map(String.init).joined(separator: ".") }

    private func padded(to count: Int) -> [Int] { parts + Array(repeating: 0, count: max(0, count - parts.count)) }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        let count = max(lhs.parts.count, rhs.parts.count)
        return lhs.padded(to: count).lexicographicallyPrecedes(rhs.padded(to: count))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        let count = max(lhs.parts.count, rhs.parts.count)
        return lhs.padded(to: count) == rhs.padded(to: count)
    }

    public func hash(into hasher: inout Hasher) {
        var parts = parts
        while parts.count > 1, parts.last == 0 { parts.removeLast() }
        hasher.combine(parts)
    }
}

/// One entry of a manifest's `requires`: a plugin's name and what its version must satisfy —
/// `"z_base"`, `"z_base >= 2.0"`, `"z_base >= 2.0, < 3"`, `"z_base ~> 2.1"`.
public struct PluginRequirement: Hashable, Sendable, CustomStringConvertible {
    /// One comparison with a version.
    public struct Constraint: Hashable, Sendable, CustomStringConvertible {
        /// `>=`, `>`, `=` (also `==`), `<`, `<=`, `~>` (at least this version, below the next release of
        /// its second-to-last number: `~> 2.1` is `>= 2.1, < 3`, `~> 2.1.3` is `>= 2.1.3, < 2.2`).
        public let operation: String
        public let version: PluginVersion

        public var description: String { "\(operation) \(version)" }

        /// Whether `candidate` satisfies it.
        public func admits(_ candidate: PluginVersion) -> Bool {
            switch operation {
            case ">=": return candidate >= version
            case ">": return candidate > version
            case "=", "==": return candidate == version
            case "<": return candidate < version
            case "<=": return candidate <= version
            default: // ~>
                var upper = Array(version.parts.dropLast())
                if upper.isEmpty { return candidate >= version }
                upper[upper.count - 1] += 1
                return candidate >= version && candidate < PluginVersion(parts: upper)
            }
        }
    }

    /// The plugin required.
    public let name: String
    /// What its version must satisfy, all of them; none for any version.
    public let constraints: [Constraint]

    static let operations = ["~>", ">=", "<=", "==", ">", "<", "="]

    /// The requirement `text` spells.
    ///
    /// - Throws: a message naming what does not parse.
    public init(parsing text: String) throws(PluginManifestError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let name = String(trimmed.prefix { !$0.isWhitespace && !"<>=~,".contains($0) })
        guard !name.isEmpty else { throw PluginManifestError("requires entry '\(text)' does not start with a plugin's name") }
        self.name = Name.normalized(name)
        var constraints: [Constraint] = []
        let rest = trimmed.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty {
            for clause in rest.split(separator: ",", omittingEmptySubsequences: false) {
                let clause = clause.trimmingCharacters(in: .whitespaces)
                guard let operation = Self.operations.first(where: { clause.hasPrefix($0) }) else {
                    throw PluginManifestError("requires entry '\(text)': '\(clause)' is not a version constraint (use >=, >, =, <, <= or ~> and a version such as 2.0)")
                }
                let number = clause.dropFirst(operation.count).trimmingCharacters(in: .whitespaces)
                guard let version = PluginVersion(number) else {
                    throw PluginManifestError("requires entry '\(text)': '\(number)' is not a version (numbers separated by dots, such as 2.0 or 1.4.2)")
                }
                constraints.append(Constraint(operation: operation, version: version))
            }
        }
        self.constraints = constraints
    }

    /// Whether `version` satisfies every constraint.
    public func admits(_ version: PluginVersion?) -> Bool {
        guard !constraints.isEmpty else { return true }
        guard let version else { return false }
        return constraints.allSatisfy { $0.admits(version) }
    }

    public var description: String {
        constraints.isEmpty ? name : name + " " + constraints.map(\.description).joined(separator: ", ")
    }
}
