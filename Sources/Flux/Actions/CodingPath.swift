/// Renders a Codable coding path the way a user writes it in Lua or JSON: `filters[3].enabled`.
///
/// Integer keys (array positions, zero-based in Swift) are shown one-based, as Lua indexes sequences,
/// so the message points at the element a script author would name.
///
/// ```swift
/// CodingPath.describe([Key("filters"), Index(2), Key("enabled")], root: "state")  // "state.filters[3].enabled"
/// ```
public enum CodingPath {
    /// The dotted path for `path`, prefixed with `root` when one is given.
    public static func describe(_ path: [any CodingKey], root: String? = nil) -> String {
        var text = root ?? ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                text += "[\(index + 1)]"
            } else if text.isEmpty {
                text = key.stringValue
            } else {
                text += "." + key.stringValue
            }
        }
        return text
    }
}

/// The words a message uses for a Swift type a payload was expected to hold ("a string", "an integer").
public enum ValueKind {
    /// A short English name for `type`, with its article.
    public static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type, is Character.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
             is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
            return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") || name.hasPrefix("[") { return "an array" }
            if name.hasPrefix("Optional<") { return "a value or nil" }
            return "a table"
        }
    }
}

extension DecodingError {
    /// A one-line message naming the field and what was wrong with it:
    /// `field 'filter': expected a string, got nil`.
    ///
    /// Decoders in this package put "expected …, got …" in the debug description; for other decoders
    /// (JSONDecoder) the message is built from the error's kind and the expected type.
    public var fieldMessage: String {
        let (path, detail): ([any CodingKey], String)
        switch self {
        case let .typeMismatch(type, context):
            path = context.codingPath
            detail = Self.detail(context, fallback: "expected \(ValueKind.describe(type))")
        case let .valueNotFound(type, context):
            path = context.codingPath
            detail = Self.detail(context, fallback: "expected \(ValueKind.describe(type)), got nil")
        case let .keyNotFound(key, context):
            path = context.codingPath + [key]
            detail = Self.detail(context, fallback: "expected a value, got nil", onlyOwn: true)
        case let .dataCorrupted(context):
            path = context.codingPath
            detail = Self.detail(context, fallback: "invalid value")
        @unknown default:
            return String(describing: self)
        }
        let where_ = CodingPath.describe(path)
        return where_.isEmpty ? detail : "field '\(where_)': \(detail)"
    }

    /// Our decoders phrase their descriptions as "expected …" ("invalid …", "unknown …" for corrupt
    /// data); anything else is replaced by `fallback`.
    private static func detail(_ context: Context, fallback: String, onlyOwn: Bool = false) -> String {
        let text = context.debugDescription
        let own = text.hasPrefix("invalid ") || text.hasPrefix("unknown ")
        return text.hasPrefix("expected ") || (!onlyOwn && own) ? text : fallback
    }
}
