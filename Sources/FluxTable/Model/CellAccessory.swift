/// The mark at the trailing edge of a row, as in UIKit's `UITableViewCell.AccessoryType`.
///
/// Coded as its name, a string (`"none"`, `"checkmark"`, `"disclosure"`), so a Lua table writes
/// `accessory = "checkmark"`.
public enum CellAccessory: String, Codable, Sendable, CaseIterable {
    /// No mark.
    case none
    /// A check mark: the row is chosen (`✓`, or `v` without Unicode).
    case checkmark
    /// A disclosure mark: choosing the row leads somewhere (`›`, or `>` without Unicode).
    case disclosure

    /// Decodes a name; an unknown name is an error that lists the known ones.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let accessory = CellAccessory(rawValue: name) else {
            let known = Self.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown accessory '\(name)', expected one of \(known)")
        }
        self = accessory
    }
}
