/// A group of rows under an optional header, as in a grouped `UITableView`.
///
/// `id` is the section's identity for diffing. It defaults to the header title; a section with neither
/// id nor header gets an empty id, which ``TableViewModel`` replaces by its position, `"section-N"`
/// (N counted from 0). Cell ids must be unique within a section: ``validate()`` names any repeats.
///
/// The coded form uses the keys `id`, `header` (the title), `height` and `cells`; `headerTitle` and
/// `headerHeight` are accepted as aliases. Every key may be missing.
///
/// ```lua
/// { header = "Issues", height = 28, cells = { { title = "Open" }, { title = "Closed" } } }
/// ```
public struct SectionModel: Hashable, Sendable {
    /// The section's identity within its table.
    public var id: String
    /// The header's text, or nil for a section without a header.
    public var headerTitle: String?
    /// The header's height in points, as a table view would lay it out. On a terminal, 20 points or
    /// more become a blank line before the header.
    public var headerHeight: Double?
    /// The rows, top to bottom.
    public var cells: [CellViewModel]

    /// A section; `id` defaults to `headerTitle`, else to the section's position in its table.
    public init(
        id: String? = nil,
        headerTitle: String? = nil,
        headerHeight: Double? = nil,
        cells: [CellViewModel] = []
    ) {
        self.id = id ?? headerTitle ?? ""
        self.headerTitle = headerTitle
        self.headerHeight = headerHeight
        self.cells = cells
    }

    /// Throws ``TableModelError/duplicateCellIDs(section:ids:)`` when two rows share an id, since the diff
    /// could not tell them apart.
    public func validate() throws {
        var seen = Set<String>(minimumCapacity: cells.count)
        var repeated: [String] = []
        for cell in cells where !seen.insert(cell.id).inserted && !repeated.contains(cell.id) {
            repeated.append(cell.id)
        }
        if !repeated.isEmpty {
            throw TableModelError.duplicateCellIDs(section: id, ids: repeated)
        }
    }
}

extension SectionModel: Codable {
    /// The keys of the coded form, the field names a Lua table uses.
    enum CodingKeys: String, CodingKey {
        case id, header, height, cells
    }

    /// The longer spellings accepted when decoding.
    enum AliasKeys: String, CodingKey {
        case headerTitle, headerHeight
    }

    /// Decodes a section and validates it, so a table with repeated row ids fails where it is read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let aliases = try decoder.container(keyedBy: AliasKeys.self)
        let title = try container.decodeIfPresent(String.self, forKey: .header)
            ?? aliases.decodeIfPresent(String.self, forKey: .headerTitle)
        let height = try container.decodeIfPresent(Double.self, forKey: .height)
            ?? aliases.decodeIfPresent(Double.self, forKey: .headerHeight)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id),
            headerTitle: title,
            headerHeight: height,
            cells: try container.decodeIfPresent([CellViewModel].self, forKey: .cells) ?? []
        )
        do {
            try validate()
        } catch let error as TableModelError { // "invalid …": a decoding message names what was wrong, not a fallback
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "invalid cells: \(error)", underlyingError: error))
        }
    }

    /// Encodes `id`, `header` and `height` when present, and `cells`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(headerTitle, forKey: .header)
        try container.encodeIfPresent(headerHeight, forKey: .height)
        try container.encode(cells, forKey: .cells)
    }
}
