// The change records a `TableDiff` lists. Indices named `from` count in the old model, those named
// `to` (and the index of an insert) in the new one, as UIKit's batch updates count them.

/// A section present only in the new model, with its rows.
public struct SectionInsert: Hashable, Sendable {
    /// The section's index in the new model.
    public var index: Int
    /// The inserted section, rows included.
    public var section: SectionModel

    /// An insert of `section` at `index`.
    public init(index: Int, section: SectionModel) {
        self.index = index
        self.section = section
    }
}

/// A section whose position changed other than by the inserts and deletes around it.
public struct SectionMove: Hashable, Sendable {
    /// The section's index in the old model.
    public var from: Int
    /// The section's index in the new model.
    public var to: Int

    /// A move from old index `from` to new index `to`.
    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }
}

/// A section kept by id whose header changed; its rows have their own changes.
public struct SectionUpdate: Hashable, Sendable {
    /// The section's index in the old model.
    public var from: Int
    /// The section's index in the new model.
    public var to: Int
    /// The new header title.
    public var headerTitle: String?
    /// The new header height.
    public var headerHeight: Double?

    /// A header change of the section at old index `from`, new index `to`.
    public init(from: Int, to: Int, headerTitle: String?, headerHeight: Double?) {
        self.from = from
        self.to = to
        self.headerTitle = headerTitle
        self.headerHeight = headerHeight
    }
}

/// A row present only in the new model, in a section present in both.
public struct RowInsert: Hashable, Sendable {
    /// The row's position in the new model.
    public var path: RowPath
    /// The inserted row.
    public var cell: CellViewModel

    /// An insert of `cell` at `path`.
    public init(path: RowPath, cell: CellViewModel) {
        self.path = path
        self.cell = cell
    }
}

/// A row whose position changed other than by the inserts, deletes and moves around it, or that went
/// to another section.
public struct RowMove: Hashable, Sendable {
    /// The row's position in the old model.
    public var from: RowPath
    /// The row's position in the new model.
    public var to: RowPath

    /// A move from old position `from` to new position `to`.
    public init(from: RowPath, to: RowPath) {
        self.from = from
        self.to = to
    }
}

/// A row kept by id whose content changed; it may also have moved.
public struct RowUpdate: Hashable, Sendable {
    /// The row's position in the old model (what UIKit's `reloadRows` takes).
    public var from: RowPath
    /// The row's position in the new model.
    public var to: RowPath
    /// The row's new content.
    public var cell: CellViewModel

    /// An update of the row at old position `from`, new position `to`, to `cell`.
    public init(from: RowPath, to: RowPath, cell: CellViewModel) {
        self.from = from
        self.to = to
        self.cell = cell
    }
}
