/// What a table shows: sections of rows, as pure data a view provider computes from state.
///
/// A view provider is a pure function from state to a `TableViewModel`; ``TableDiff`` then finds what
/// changed between two of them, and ``TableRenderer`` and ``PatchRenderer`` show a model or a change on
/// a terminal. Built the same way from Swift and from a Lua table, through its `Codable` form:
///
/// ```lua
/// { sections = { { header = "Issues", height = 28, cells = { { title = "Open", detail = "12" } } } } }
/// ```
///
/// A section without id or header is identified by its position, `"section-N"` from 0: the model fills
/// those ids in whenever its sections are set.
public struct TableViewModel: Hashable, Sendable {
    /// The sections, top to bottom. Setting them fills in positional ids.
    public var sections: [SectionModel] {
        didSet { Self.assignPositionalIDs(&sections) }
    }

    /// A table of `sections`.
    public init(sections: [SectionModel] = []) {
        var sections = sections
        Self.assignPositionalIDs(&sections)
        self.sections = sections
    }

    /// The number of rows in all sections.
    public var cellCount: Int {
        sections.reduce(0) { $0 + $1.cells.count }
    }

    /// The row at `path`, or nil when there is none.
    public func cell(at path: RowPath) -> CellViewModel? {
        guard sections.indices.contains(path.section), sections[path.section].cells.indices.contains(path.row)
        else { return nil }
        return sections[path.section].cells[path.row]
    }

    /// Throws a ``TableModelError`` naming repeated section ids, or repeated row ids in one section:
    /// the diff identifies sections and rows by id, so they must be unique.
    public func validate() throws {
        try validateSectionIDs()
        for section in sections {
            try section.validate()
        }
    }

    /// Throws a ``TableModelError`` naming repeated section ids; the rows are not looked at (for sections
    /// each checked when made, as a view reusing the ones it built before does).
    public func validateSectionIDs() throws {
        var seen = Set<String>(minimumCapacity: sections.count)
        var repeated: [String] = []
        for section in sections where !seen.insert(section.id).inserted && !repeated.contains(section.id) {
            repeated.append(section.id)
        }
        if !repeated.isEmpty {
            throw TableModelError.duplicateSectionIDs(ids: repeated)
        }
    }

    /// Gives every section with an empty id the id of its position.
    private static func assignPositionalIDs(_ sections: inout [SectionModel]) {
        for index in sections.indices where sections[index].id.isEmpty {
            sections[index].id = "section-\(index)"
        }
    }
}

extension TableViewModel: Codable {
    /// The keys of the coded form, the field names a Lua table uses.
    enum CodingKeys: String, CodingKey {
        case sections
    }

    /// Decodes a table (a missing `sections` is an empty table) and validates it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(sections: try container.decodeIfPresent([SectionModel].self, forKey: .sections) ?? [])
        do {
            try validate()
        } catch let error as TableModelError {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath + [CodingKeys.sections],
                debugDescription: "invalid sections: \(error)", underlyingError: error))
        }
    }

    /// Encodes `sections`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sections, forKey: .sections)
    }
}
