/// One row of a table: pure data, no closures, so it is built the same way from Swift and from a Lua table.
///
/// `id` is the row's identity for diffing: two rows with the same id in an old and a new model are the
/// same row (moved, or updated when any other field differs). It defaults to the title, which suits
/// lists whose titles are unique; give an explicit id when a title can change or repeat.
///
/// The coded form is a flat table: `id`, `title`, `detail`, `accessory` (`"none"`, `"checkmark"` or
/// `"disclosure"`), `enabled`, `selected`, `action` and `payload`. Only `title` is required.
///
/// `action` names the action a live view (`:open`) dispatches when the row is chosen, with `payload`
/// (see ``CellPayload``): still plain data, so the model stays codable. A disabled row never dispatches.
///
/// ```swift
/// CellViewModel(title: "Open", detail: "12", accessory: .disclosure)
/// CellViewModel(id: "7", title: "#7 Crash", action: "issues.close", payload: ["id": 7])
/// ```
/// ```lua
/// { title = "Open", detail = "12", accessory = "disclosure" }
/// { id = "7", title = "#7 Crash", action = "issues.close", payload = { id = 7 } }
/// ```
public struct CellViewModel: Hashable, Sendable {
    /// The row's identity within its section.
    public var id: String
    /// The main text.
    public var title: String
    /// Secondary text shown in its own column, if any.
    public var detail: String?
    /// The trailing mark.
    public var accessory: CellAccessory
    /// Whether the row can be chosen; a disabled row is shown dimmed.
    public var enabled: Bool
    /// Whether the row is the current selection; a selected row is marked.
    public var selected: Bool
    /// The name of the action choosing the row dispatches, if any.
    public var action: String?
    /// The payload the action is dispatched with (an array: one choice per element), if any.
    public var payload: CellPayload?

    /// A row; `id` defaults to `title`.
    public init(
        id: String? = nil,
        title: String,
        detail: String? = nil,
        accessory: CellAccessory = .none,
        enabled: Bool = true,
        selected: Bool = false,
        action: String? = nil,
        payload: CellPayload? = nil
    ) {
        self.id = id ?? title
        self.title = title
        self.detail = detail
        self.accessory = accessory
        self.enabled = enabled
        self.selected = selected
        self.action = action
        self.payload = payload
    }
}

extension CellViewModel: Codable {
    /// The keys of the coded form, the field names a Lua table uses.
    enum CodingKeys: String, CodingKey {
        case id, title, detail, accessory, enabled, selected, action, payload
    }

    /// Decodes a row; every key but `title` may be missing and takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id),
            title: try container.decode(String.self, forKey: .title),
            detail: try container.decodeIfPresent(String.self, forKey: .detail),
            accessory: try container.decodeIfPresent(CellAccessory.self, forKey: .accessory) ?? .none,
            enabled: try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true,
            selected: try container.decodeIfPresent(Bool.self, forKey: .selected) ?? false,
            action: try container.decodeIfPresent(String.self, forKey: .action),
            payload: try container.decodeIfPresent(CellPayload.self, forKey: .payload)
        )
    }

    /// Encodes every field, leaving out a missing detail, action or payload.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encode(accessory, forKey: .accessory)
        try container.encode(enabled, forKey: .enabled)
        try container.encode(selected, forKey: .selected)
        try container.encodeIfPresent(action, forKey: .action)
        try container.encodeIfPresent(payload, forKey: .payload)
    }
}
